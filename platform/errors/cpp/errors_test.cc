// FieldError keeps its class, field, value and allowed values as given, and
// worded() spells the value as JSON, with the fix after it.
#include "platform/errors/cpp/errors.h"

#include "platform/cpp/testing/check.h"

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

int main() { return rocke::testing::run_all(); }
