// Float formats as bits, mirroring platform/lower/floats.py: f32, f16, bf16
// and fp8 (OCP E4M3 "fn" and E5M2). LLVM has no fp8 type: fp8 values are i8
// codes; encoding rounds to nearest even and saturates to the largest finite
// value (NaN stays NaN).
#pragma once

#include <cstdint>
#include <string_view>

namespace rocke::lower {

struct Fp8 {
  std::string_view name;
  int exp_bits;
  int man_bits;
  int bias;
  int max_code;  // largest finite magnitude code
  int nan_code;
};

// The fp8 format called `name` (f8e4m3, f8e5m2); std::out_of_range otherwise.
const Fp8& fp8(std::string_view name);

// x rounded to float32 (overflow gives a signed infinity), as a double.
double f32_round(double x);
std::uint32_t f32_bits(double x);
// Rounded to nearest even from the double (Python's struct 'e'); a value
// that rounds past the largest half is the signed infinity, NaN 0x7E00 with x's sign.
std::uint16_t f16_bits(double x);
// Through f32, rounded to nearest even; NaN is 0x7FC0.
std::uint16_t bf16_bits(double x);

// The value of an fp8 code, and the round-to-nearest-even, saturating code of x.
double decode_fp8(int code, const Fp8& format);
int encode_fp8(double x, const Fp8& format);

}  // namespace rocke::lower
