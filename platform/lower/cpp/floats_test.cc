// Float bits against the formats' definitions: IEEE 754 binary16 and
// binary32, bfloat16 (the upper half of binary32, rounded to nearest even),
// and the OCP 8-bit formats (OCP 8-bit Floating Point Specification v1.0:
// E4M3 max 448, no infinities, S.1111.111 NaN; E5M2 max 57344, IEEE-like).
// Expected codes are worked out from those definitions, not from this code.
#include "platform/lower/cpp/floats.h"

#include <cmath>
#include <limits>

#include "platform/cpp/testing/check.h"

using namespace rocke::lower;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
}

ROCKE_TEST(f32_rounds_to_nearest_even_and_overflows_to_infinity) {
  CHECK_EQ(f32_round(0.1), 0.100000001490116119384765625);  // binary32 0x3DCCCCCD
  CHECK_EQ(f32_bits(0.1), 0x3DCCCCCDu);
  CHECK_EQ(f32_bits(1.0), 0x3F800000u);
  CHECK_EQ(f32_bits(-2.5), 0xC0200000u);
  CHECK_EQ(f32_bits(3.5e38), 0x7F800000u);  // past FLT_MAX 3.4028235e38
  CHECK_EQ(f32_bits(-1e300), 0xFF800000u);
  // 1 + 2^-24 is halfway between 1 and 1 + 2^-23: ties to the even 1.0.
  CHECK_EQ(f32_bits(1.0 + std::ldexp(1.0, -24)), 0x3F800000u);
  CHECK_EQ(f32_bits(1.0 + 3 * std::ldexp(1.0, -24)), 0x3F800002u);
}

ROCKE_TEST(f16_bits_per_ieee_binary16) {
  CHECK_EQ(f16_bits(1.0), 0x3C00);
  CHECK_EQ(f16_bits(-2.0), 0xC000);
  CHECK_EQ(f16_bits(0.1), 0x2E66);      // 0.0999755859375; 0x2E67 is farther
  CHECK_EQ(f16_bits(65504.0), 0x7BFF);  // largest finite
  CHECK_EQ(f16_bits(65519.99), 0x7BFF);
  CHECK_EQ(f16_bits(65520.0), 0x7C00);  // halfway to 2^16: rounds past the largest, to infinity
  CHECK_EQ(f16_bits(-1e300), 0xFC00);
  CHECK_EQ(f16_bits(kInf), 0x7C00);
  CHECK_EQ(f16_bits(std::ldexp(1.0, -14)), 0x0400);      // smallest normal
  CHECK_EQ(f16_bits(std::ldexp(1.0, -24)), 0x0001);      // smallest subnormal
  CHECK_EQ(f16_bits(std::ldexp(1.0, -25)), 0x0000);      // half of it: ties to even 0
  CHECK_EQ(f16_bits(3 * std::ldexp(1.0, -25)), 0x0002);  // 1.5 steps: ties to even 2
  CHECK_EQ(f16_bits(-0.0), 0x8000);
  // Rounded once from the double, not through f32: 1 + 2^-11 + 2^-40 is just
  // above halfway between 1 and 1 + 2^-10, so it rounds up; via f32 it would
  // become exactly halfway and round down to even.
  CHECK_EQ(f16_bits(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3C01);
  CHECK_EQ(f16_bits(std::nan("")), 0x7E00);
  CHECK_EQ(f16_bits(-std::nan("")), 0xFE00);
}

ROCKE_TEST(bf16_bits_are_the_rounded_upper_half_of_f32) {
  CHECK_EQ(bf16_bits(1.0), 0x3F80);
  CHECK_EQ(bf16_bits(0.1), 0x3DCD);  // f32 0x3DCCCCCD: lower half 0xCCCD > 0x8000 rounds up
  CHECK_EQ(bf16_bits(-2.5), 0xC020);
  CHECK_EQ(bf16_bits(kInf), 0x7F80);
  CHECK_EQ(bf16_bits(std::nan("")), 0x7FC0);
  // f32 0x3F808000 is halfway between bf16 0x3F80 and 0x3F81: ties to even.
  CHECK_EQ(bf16_bits(1.00390625), 0x3F80);
  CHECK_EQ(bf16_bits(1.01171875), 0x3F82);  // 0x3F818000: halfway, to even 0x3F82
}

ROCKE_TEST(fp8_e4m3_per_ocp) {
  const Fp8& f = fp8("f8e4m3");
  CHECK_EQ(decode_fp8(0x38, f), 1.0);                  // exponent 7 = bias
  CHECK_EQ(decode_fp8(0x7E, f), 448.0);                // S.1111.110
  CHECK_EQ(decode_fp8(0x01, f), std::ldexp(1.0, -9));  // smallest subnormal
  CHECK_EQ(decode_fp8(0xB8, f), -1.0);
  CHECK(std::isnan(decode_fp8(0x7F, f)));
  CHECK(std::isnan(decode_fp8(0xFF, f)));
  CHECK_EQ(encode_fp8(1.0, f), 0x38);
  CHECK_EQ(encode_fp8(-1.0, f), 0xB8);
  CHECK_EQ(encode_fp8(448.0, f), 0x7E);
  CHECK_EQ(encode_fp8(1000.0, f), 0x7E);  // saturates
  CHECK_EQ(encode_fp8(kInf, f), 0x7E);
  CHECK_EQ(encode_fp8(-kInf, f), 0xFE);
  CHECK_EQ(encode_fp8(std::nan(""), f), 0x7F);
  CHECK_EQ(encode_fp8(std::ldexp(1.0, -9), f), 0x01);
  CHECK_EQ(encode_fp8(std::ldexp(1.0, -10), f), 0x00);  // half a step: ties to even 0
  CHECK_EQ(encode_fp8(1.0625, f), 0x38);                // halfway between 1 and 1.125: to even
  CHECK_EQ(encode_fp8(1.1875, f), 0x3A);                // halfway between 1.125 and 1.25: to even 1.25
  CHECK_EQ(encode_fp8(-0.0, f), 0x80);
}

ROCKE_TEST(fp8_e5m2_per_ocp) {
  const Fp8& f = fp8("f8e5m2");
  CHECK_EQ(decode_fp8(0x3C, f), 1.0);      // exponent 15 = bias
  CHECK_EQ(decode_fp8(0x7B, f), 57344.0);  // S.11110.11
  CHECK_EQ(decode_fp8(0x7C, f), kInf);
  CHECK_EQ(decode_fp8(0xFC, f), -kInf);
  CHECK(std::isnan(decode_fp8(0x7D, f)));
  CHECK_EQ(decode_fp8(0x01, f), std::ldexp(1.0, -16));
  CHECK_EQ(encode_fp8(1.0, f), 0x3C);
  CHECK_EQ(encode_fp8(57344.0, f), 0x7B);
  CHECK_EQ(encode_fp8(kInf, f), 0x7B);  // saturating: infinity becomes the largest finite
  CHECK_EQ(encode_fp8(std::nan(""), f), 0x7E);
  CHECK_EQ(encode_fp8(std::ldexp(1.0, -16), f), 0x01);
  CHECK_EQ(encode_fp8(1.125, f), 0x3C);  // halfway between 1 and 1.25: to even
}

ROCKE_TEST(every_fp8_code_round_trips) {
  for (const char* name : {"f8e4m3", "f8e5m2"}) {
    const Fp8& f = fp8(name);
    for (int code = 0; code < 256; ++code) {
      double v = decode_fp8(code, f);
      if (std::isnan(v) || std::isinf(v)) continue;
      CHECK_EQ(encode_fp8(v, f), code);
    }
  }
}

int main() { return rocke::testing::run_all(); }
