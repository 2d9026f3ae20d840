#include "platform/ir/cpp/mma.h"

#include <stdexcept>

#include "platform/cpp/testing/check.h"

using namespace rocke::ir;

// Expected values read from platform/arch/mma_forms.json.
ROCKE_TEST(shape_of_an_op_id) {
  const auto s = mma::shape("mma_32x32x8_f16_f32");
  REQUIRE(s.has_value());
  CHECK_EQ(s->m, 32);
  CHECK_EQ(s->n, 32);
  CHECK_EQ(s->k, 8);
  CHECK(s->a == scalar("f16"));
  CHECK(s->c == scalar("f32"));
  // fp8 is f8e4m3 (ir/mma.py TYPES).
  const auto fp8 = mma::shape("mma_16x16x32_fp8_f32");
  REQUIRE(fp8.has_value());
  CHECK(fp8->a == scalar("f8e4m3"));
  CHECK(!mma::shape("mma_16x16x16_f16_f16").has_value());
  CHECK(!mma::shape("").has_value());
}

ROCKE_TEST(fragment_types_by_generation) {
  const auto gfx9 = mma::fragment_types("mma_16x16x16_bf16_f32", "gfx9");
  CHECK_EQ(gfx9.a->str(), "vector<4xbf16>");
  CHECK_EQ(gfx9.b->str(), "vector<4xbf16>");
  CHECK_EQ(gfx9.c->str(), "vector<4xf32>");
  const auto gfx11 = mma::fragment_types("mma_16x16x16_bf16_f32", "gfx11");
  CHECK_EQ(gfx11.a->str(), "vector<16xbf16>");
  CHECK_EQ(gfx11.c->str(), "vector<8xf32>");
  CHECK_EQ(mma::fragment_types("mma_16x16x16_bf16_f32", "gfx12").a->str(), "vector<8xbf16>");
  CHECK_THROWS(std::out_of_range, mma::fragment_types("mma_16x16x16_bf16_f32", "gfx10"),
               "mma.fragment_types: mma_forms.json has no form (mma_16x16x16_bf16_f32, gfx10)");
}

int main() { return rocke::testing::run_all(); }
