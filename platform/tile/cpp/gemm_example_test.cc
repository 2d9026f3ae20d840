// The example's refusals that have no Python twin: variant_kernel's modes
// are gemm_parity_test.py's (its _variant takes any of them and nothing
// else), so only C++ refuses another; the rest are gemm_parity_test's.
#include "platform/tile/cpp/gemm_example.h"

#include <string>

#include "platform/cpp/json/json.h"
#include "platform/cpp/testing/check.h"
#include "platform/errors/cpp/errors.h"

using namespace rocke;

ROCKE_TEST(an_unknown_variant_names_the_mode_and_the_modes) {
  CHECK_THROWS(errors::FieldError, tile::example::variant_kernel("gfx942", "f16", "gelu"),
               "variant_kernel.mode: expected one of bias_relu, atomic, elements, fma, residual_before, "
               "residual_after, got \"gelu\"");
  try {
    tile::example::variant_kernel("gfx942", "f16", "Atomic");
    CHECK(false);
  } catch (const errors::FieldError& e) {
    CHECK_EQ(
        json::canonical(e.facts()),
        std::string(
            R"(["FieldError","variant_kernel.mode","Atomic",["bias_relu","atomic","elements","fma","residual_before","residual_after"]])"));
  }
}

ROCKE_TEST(every_variant_builds) {
  for (const char* mode : {"bias_relu", "atomic", "elements", "fma", "residual_before", "residual_after"}) {
    CHECK(tile::example::variant_kernel("gfx942", "f16", mode) != nullptr);
  }
}

int main() { return rocke::testing::run_all(); }
