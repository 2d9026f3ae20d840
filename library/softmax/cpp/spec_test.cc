// SoftmaxSpec in C++ on hand-computed values: the defaults, the vector width
// and the scale as the kernel multiplies by it, and a refusal's facts
// (spec_parity_test compares every refusal with Python's).
#include "library/softmax/cpp/spec.h"

#include "platform/cpp/json/json.h"
#include "platform/cpp/testing/check.h"
#include "platform/family/cpp/family.h"

using namespace rocke;

ROCKE_TEST(defaults_and_the_vector_width) {
  const softmax::SoftmaxSpec s = softmax::SoftmaxSpec::from_json(json::parse(R"({"rows":8,"dim":1000})"));
  CHECK_EQ(json::canonical(s.to_json()),
           std::string(R"({"dim":1000,"dtype":"f16","lane_elements":32,"mask":false,"rows":8,"scale":"1",)") +
               R"("waves":4})");
  CHECK_EQ(s.vector(), 8);
  CHECK_EQ(softmax::SoftmaxSpec::from_json(json::parse(R"({"rows":1,"dim":100,"dtype":"f32"})")).vector(), 4);
  CHECK_EQ(softmax::SoftmaxSpec::from_json(json::parse(R"({"rows":1,"dim":77})")).vector(), 1);
}

ROCKE_TEST(the_scale_is_rounded_to_f32) {
  const softmax::SoftmaxSpec s = softmax::SoftmaxSpec::from_json(json::parse(R"({"rows":1,"dim":8,"scale":"0.1"})"));
  CHECK_EQ(s.scale_value(), static_cast<double>(0.1F));
}

ROCKE_TEST(a_bad_dtype_is_refused_naming_the_field) {
  try {
    softmax::SoftmaxSpec::from_json(json::parse(R"({"rows":1,"dim":8,"dtype":"f64"})"));
    CHECK(false);
  } catch (const family::SpecError& e) {
    CHECK_EQ(json::canonical(e.facts()), R"(["SpecError","SoftmaxSpec.dtype","f64",["f16","bf16","f32"]])");
  }
}

int main() { return rocke::testing::run_all(); }
