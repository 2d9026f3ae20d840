// softmax::chain against platform/tile/softmax_test.py's cases: the ops that
// chain and the refusals, with Python's facts.
#include "platform/tile/cpp/softmax.h"

#include <string>

#include "platform/cpp/json/json.h"
#include "platform/cpp/testing/check.h"
#include "platform/errors/cpp/errors.h"

using namespace rocke;

ROCKE_TEST(the_16x16x16_ops_chain) {
  for (const char* op : {"mma_16x16x16_f16_f32", "mma_16x16x16_bf16_f32"}) {
    CHECK_EQ(tile::softmax::chain(op, "gfx9").c_n, 16);
  }
  CHECK_EQ(tile::softmax::chain("mma_16x16x16_f16_f32", "gfx12").per_lane, 8);
}

ROCKE_TEST(other_ops_are_refused_with_pythons_facts) {
  for (const char* op : {"mma_32x32x8_f16_f32", "mma_16x16x32_f16_f32"}) {
    try {
      tile::softmax::chain(op, "gfx9");
      CHECK(false);
    } catch (const errors::FieldError& e) {
      CHECK_EQ(json::canonical(e.facts()),
               R"(["FieldError","softmax.chain",{"generation":"gfx9","op":")" + std::string(op) + R"("},null])");
    }
  }
  CHECK_THROWS(errors::FieldError, tile::softmax::chain("mma_16x16x16_f16_f32", "gfx8"),
               "softmax.chain: expected an op with a fragment layout on gfx8, got mma_16x16x16_f16_f32");
}

int main() { return rocke::testing::run_all(); }
