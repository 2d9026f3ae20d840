// FieldError keeps its class, field, value and allowed values as given,
// worded() spells the value as JSON, with the fix after it, and closest()
// finds the did-you-mean candidate.
#include "platform/errors/cpp/errors.h"

#include <span>
#include <string_view>

#include "platform/cpp/testing/check.h"

using rocke::errors::closest;
using rocke::errors::FieldError;
using rocke::errors::worded;
namespace json = rocke::json;

ROCKE_TEST(facts_are_the_class_name_field_value_and_allowed) {
  const FieldError e("conv.spec.SpecError", "ConvSpec.layout", "nhwc", json::Array{"NHWC", "NCHW"},
                     worded("ConvSpec.layout", "one of NHWC, NCHW", "nhwc"));
  CHECK_EQ(e.class_name(), std::string("SpecError"));
  CHECK_EQ(e.python_class(), std::string("conv.spec.SpecError"));
  CHECK_EQ(json::canonical(e.facts()), std::string(R"(["SpecError","ConvSpec.layout","nhwc",["NHWC","NCHW"]])"));
  CHECK_EQ(std::string(e.what()), std::string(R"(ConvSpec.layout: expected one of NHWC, NCHW, got "nhwc")"));
}

ROCKE_TEST(worded_puts_the_fix_last) {
  CHECK_EQ(worded("S.n", "a positive int", json::Value(0), "use n >= 1"),
           std::string("S.n: expected a positive int, got 0; use n >= 1"));
  CHECK_EQ(worded("S.t", "ints >= 1", json::Array{1, json::BigInt{"-99999999999999999999"}}),
           std::string("S.t: expected ints >= 1, got [1,-99999999999999999999]"));
}

ROCKE_TEST(closest_is_within_a_third_of_the_candidate) {
  const std::string_view archs[] = {"gfx90a", "gfx942", "gfx950", "gfx1201"};
  CHECK_EQ(closest("gfx943", archs), std::string_view("gfx942"));    // a substitution; gfx942 comes before gfx950
  CHECK_EQ(closest("GFX1201", archs), std::string_view("gfx1201"));  // case ignored
  CHECK_EQ(closest("gfx", archs), std::string_view(""));             // 3 edits, more than a third of 6
  const std::string_view toy[] = {"toy"};
  CHECK_EQ(closest("tyo", toy), std::string_view("toy"));  // a swap of neighbours is one edit
  CHECK_EQ(closest("yot", toy), std::string_view(""));
  CHECK_EQ(closest("x", std::span<const std::string_view>{}), std::string_view(""));
}

int main() { return rocke::testing::run_all(); }
