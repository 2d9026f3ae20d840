// ConvSpec in C++ against what Python's library/conv/spec.py gives: the
// expected messages and values below were printed by Python's
// ConvSpec.from_json for the same JSON (spec_parity_test checks many more
// against Python itself).
#include "library/conv/cpp/spec.h"

#include <string>

#include "platform/cpp/family/family.h"
#include "platform/cpp/json/json.h"
#include "platform/cpp/testing/check.h"

namespace rocke::conv {
namespace {

const std::string kBase = R"("n":1,"c":8,"k":12,"spatial":[7,9],"filter":[3,3])";

ConvSpec from(const std::string& text) { return ConvSpec::from_json(json::parse(text)); }

// The base spec with the fields of `extra` added or replacing the base's.
ConvSpec spec(const std::string& extra) {
  json::Object fields = json::parse("{" + kBase + "}").as_object();
  json::Value added = json::parse("{" + extra + "}");
  for (const auto& [key, value] : added.as_object()) fields[key] = value;
  return ConvSpec::from_json(fields);
}

#define CHECK_SPEC_ERROR(extra, message) \
  CHECK_THROWS(family::SpecError, spec(extra), message)

ROCKE_TEST(defaults_are_filled_and_to_json_has_every_field) {
  CHECK_EQ(json::canonical(spec("").to_json()),
           std::string(R"({"bias_relu":false,"c":8,"dilation":[1,1],"dtype":"f16","filter":[3,3],"groups":1,)"
                       R"("k":12,"layout":"NHWC","n":1,"pad":[0,0],"spatial":[7,9],"stride":[1,1]})"));
}

ROCKE_TEST(shapes_as_python_gives_them) {
  ConvSpec s = spec(R"("stride":[2,1],"pad":[1,0])");
  CHECK(s.output() == (Shape{4, 7}));
  CHECK(s.input_shape() == (Shape{1, 7, 9, 8}));
  CHECK(s.output_shape() == (Shape{1, 4, 7, 12}));
  CHECK(s.weight_shape() == (Shape{12, 3, 3, 8}));
  CHECK_EQ(s.outputs(), 336);
  ConvSpec g = spec(R"("layout":"NCHW","groups":4)");
  CHECK(g.weight_shape() == (Shape{12, 2, 3, 3}));
  CHECK(g.output_shape() == (Shape{1, 12, 5, 7}));
  CHECK_EQ(g.c_per_group(), 2);
  CHECK_EQ(g.k_per_group(), 3);
}

ROCKE_TEST(the_object_and_its_fields) {
  CHECK_THROWS(family::SpecError, from(R"([1,2])"),
               "ConvSpec: expected a JSON object with the fields n, c, k, spatial, filter, stride, pad, dilation, "
               "groups, layout, dtype, bias_relu, got [1, 2]");
  CHECK_SPEC_ERROR(R"("strides":[1,1])",
                   "ConvSpec.strides: expected one of the fields n, c, k, spatial, filter, stride, pad, dilation, "
                   "groups, layout, dtype, bias_relu, got the unknown field 'strides'");
  CHECK_THROWS(family::SpecError,
               from(R"({"n":1,"c":8,"spatial":[7,9],"filter":[3,3]})"),
               "ConvSpec.k: expected a value (the field is required), got none");
}

ROCKE_TEST(each_bad_field_worded_as_python) {
  CHECK_SPEC_ERROR(R"("groups":5)", "ConvSpec.groups: expected a divisor of both c (8) and k (12), got 5");
  CHECK_THROWS(family::SpecError,
               from(R"({"n":true,"c":8,"k":12,"spatial":[7,9],"filter":[3,3]})"),
               "ConvSpec.n: expected a positive int, got True");
  CHECK_SPEC_ERROR(R"("spatial":[7])", "ConvSpec.spatial: expected (H, W) or (D, H, W), got (7,)");
  CHECK_SPEC_ERROR(R"("stride":5)",
                   "ConvSpec.stride: expected a tuple of 2 ints (one per spatial dimension), got 5");
  CHECK_SPEC_ERROR(R"("pad":[-1,0])", "ConvSpec.pad: expected ints >= 0, got (-1, 0)");
  CHECK_SPEC_ERROR(R"("dilation":[1,true])", "ConvSpec.dilation: expected ints >= 1, got (1, True)");
  CHECK_SPEC_ERROR(R"("layout":"nhwc")", "ConvSpec.layout: expected one of NHWC, NCHW, got 'nhwc'");
  CHECK_SPEC_ERROR(R"("layout":["NHWC"])", "ConvSpec.layout: expected one of NHWC, NCHW, got ['NHWC']");
  CHECK_SPEC_ERROR(R"("dtype":null)", "ConvSpec.dtype: expected one of f32, f16, bf16, got None");
  CHECK_SPEC_ERROR(R"("bias_relu":0)", "ConvSpec.bias_relu: expected True or False, got 0");
  CHECK_SPEC_ERROR(R"("filter":[],"stride":[])",
                   "ConvSpec.filter: expected a tuple of 2 ints (one per spatial dimension), got ()");
}

ROCKE_TEST(the_filter_must_fit_with_python_floor_division) {
  CHECK_SPEC_ERROR(R"("filter":[9,3])",
                   "ConvSpec.filter: expected a dilated filter that fits the padded input in dimension 0 (output "
                   "size -1), got (9, 3)");
  // (1 - 3 - 1) // 2 + 1 is -1 in Python; C++'s truncating division would say 0.
  CHECK_THROWS(family::SpecError,
               from(R"({"n":1,"c":8,"k":12,"spatial":[1,9],"filter":[4,3],"stride":[2,1]})"),
               "ConvSpec.filter: expected a dilated filter that fits the padded input in dimension 0 (output size "
               "-1), got (4, 3)");
}

// Python's ints do not overflow; a C++ spec whose sizes need more than 64
// bits is refused by name when they are asked for (Python's builder refuses
// any size above 2**31 - 1 as an i32 constant, so no kernel differs).
ROCKE_TEST(sizes_beyond_64_bits_are_refused_not_wrapped) {
  const char* limit =
      "ConvSpec: expected sizes and products of sizes below 2**63 (the C++ engine's int64 limit), got a larger one; "
      "use smaller sizes";
  ConvSpec wide = from(R"({"n":1,"c":8,"k":12,"spatial":[4611686018427387904,9],"filter":[3,3],)"
                       R"("pad":[4611686018427387904,0]})");
  CHECK_THROWS(family::SpecError, wide.output(), limit);
  ConvSpec many = from(R"({"n":2147483648,"c":8,"k":12,"spatial":[2147483648,2147483648],"filter":[1,1]})");
  CHECK(many.output() == (Shape{2147483648, 2147483648}));
  CHECK_THROWS(family::SpecError, many.outputs(), limit);
  CHECK_THROWS(family::SpecError, product({std::int64_t{1} << 40, std::int64_t{1} << 40}), limit);
}

}  // namespace
}  // namespace rocke::conv

int main() { return rocke::testing::run_all(); }
