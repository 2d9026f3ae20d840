#include "platform/lower/cpp/floats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rocke::lower {

namespace {

// The OCP 8-bit float formats (OCP 8-bit Floating Point Specification, v1.0),
// as platform/lower/floats.py's FP8 states them.
constexpr Fp8 kFormats[] = {
    // E4M3 "fn": no infinities, 0x7f is NaN, largest finite 448.
    {"f8e4m3", 4, 3, 7, 0x7E, 0x7F},
    // E5M2: IEEE-like; largest finite 57344, 0x7c infinity, 0x7d-0x7f NaN.
    {"f8e5m2", 5, 2, 15, 0x7B, 0x7E},
};

}  // namespace

const Fp8& fp8(std::string_view name) {
  for (const Fp8& f : kFormats) {
    if (f.name == name) return f;
  }
  throw std::out_of_range("fp8: expected f8e4m3 or f8e5m2, got " + std::string(name));
}

double f32_round(double x) { return static_cast<double>(static_cast<float>(x)); }

std::uint32_t f32_bits(double x) {
  auto f = static_cast<float>(x);
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

std::uint16_t f16_bits(double x) {
  std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return sign | 0x7E00;
  double a = std::fabs(x);
  // 65520 is halfway between the largest half, 65504, and 2^16: it and all
  // above round past the largest finite value.
  if (a >= 65520.0) return sign | 0x7C00;
  if (a < std::ldexp(1.0, -14)) {  // subnormal: a multiple of 2^-24 (scaling by 2^24 is exact)
    return sign | static_cast<std::uint16_t>(std::nearbyint(std::ldexp(a, 24)));
  }
  int e;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1): the exponent of a is e - 1
  int exp = e - 1;
  double m = std::nearbyint(std::ldexp(a, 10 - exp));  // in [1024, 2048]
  if (m == 2048.0) m = 1024.0, ++exp;
  return sign | static_cast<std::uint16_t>((exp + 15) << 10 | (static_cast<int>(m) - 1024));
}

std::uint16_t bf16_bits(double x) {
  if (std::isnan(x)) return 0x7FC0;
  std::uint32_t bits = f32_bits(x);
  return static_cast<std::uint16_t>(((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF);
}

double decode_fp8(int code, const Fp8& f) {
  double sign = code & 0x80 ? -1.0 : 1.0;
  int mag = code & 0x7F;
  bool e5m2 = f.name == "f8e5m2";
  if (mag == f.nan_code || (e5m2 && mag > 0x7C)) return std::nan("");
  if (e5m2 && mag == 0x7C) return sign * INFINITY;
  int e = mag >> f.man_bits, m = mag & ((1 << f.man_bits) - 1);
  if (e == 0) return sign * m * std::ldexp(1.0, 1 - f.bias - f.man_bits);
  return sign * (1 + static_cast<double>(m) / (1 << f.man_bits)) * std::ldexp(1.0, e - f.bias);
}

int encode_fp8(double x, const Fp8& f) {
  if (std::isnan(x)) return f.nan_code;
  int sign = std::signbit(x) ? 0x80 : 0;
  double a = std::min(std::fabs(f32_round(x)), decode_fp8(f.max_code, f));
  if (a < std::ldexp(1.0, 1 - f.bias)) {  // subnormal: a multiple of the smallest step
    return sign | static_cast<int>(std::nearbyint(a * std::ldexp(1.0, f.bias - 1 + f.man_bits)));
  }
  std::int64_t bits = f32_bits(a);
  int shift = 23 - f.man_bits;
  std::int64_t rounded = bits + (std::int64_t{1} << (shift - 1)) - 1 + ((bits >> shift) & 1);
  return sign |
         static_cast<int>(std::min<std::int64_t>((rounded >> shift) - ((127 - f.bias) << f.man_bits), f.max_code));
}

}  // namespace rocke::lower
