// ConvSpec in C++ against what Python's library/conv/spec.py gives: the
// expected messages and values below were printed by Python's
// ConvSpec.from_json for the same JSON (spec_parity_test checks many more
// against Python itself).
#include "library/conv/cpp/spec.h"

#include <string>

#include "platform/cpp/json/json.h"
#include "platform/cpp/testing/check.h"
#include "platform/family/cpp/family.h"

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

#define CHECK_SPEC_ERROR(extra, message) CHECK_THROWS(family::SpecError, spec(extra), message)

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
  CHECK_THROWS(family::SpecError, from(R"({"n":1,"c":8,"spatial":[7,9],"filter":[3,3]})"),
               "ConvSpec.k: expected a value (the field is required), got none");
}

ROCKE_TEST(each_bad_field_worded_as_python) {
  CHECK_SPEC_ERROR(R"("groups":5)", "ConvSpec.groups: expected a divisor of both c (8) and k (12), got 5");
  CHECK_THROWS(family::SpecError, from(R"({"n":true,"c":8,"k":12,"spatial":[7,9],"filter":[3,3]})"),
               "ConvSpec.n: expected a positive int, got True");
  CHECK_SPEC_ERROR(R"("spatial":[7])", "ConvSpec.spatial: expected (H, W) or (D, H, W), got (7,)");
  CHECK_SPEC_ERROR(R"("stride":5)", "ConvSpec.stride: expected a tuple of 2 ints (one per spatial dimension), got 5");
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
  CHECK_THROWS(family::SpecError, from(R"({"n":1,"c":8,"k":12,"spatial":[1,9],"filter":[4,3],"stride":[2,1]})"),
               "ConvSpec.filter: expected a dilated filter that fits the padded input in dimension 0 (output size "
               "-1), got (4, 3)");
}

// from_json refuses every tensor over 2**31 - 1 bytes, so a spec whose sizes
// need more than 64 bits can only be made by hand; its sizes are refused by
// name and value when they are asked for, never wrapped.
ROCKE_TEST(sizes_beyond_64_bits_are_refused_naming_the_size_and_value) {
  ConvSpec wide = from(R"({"n":1,"c":8,"k":12,"spatial":[7,9],"filter":[3,3]})");
  wide.spatial = {std::int64_t{1} << 62, 9};
  wide.pad = {std::int64_t{1} << 62, 0};
  // (2**62 + 2 * 2**62 - 2 - 1) // 1 + 1 = 3 * 2**62 - 2
  CHECK_THROWS(family::SpecError, wide.output(),
               "ConvSpec: expected the output size of dimension 0 below 2**63 (the C++ engine's int64 limit), got "
               "13835058055282163710; use smaller sizes");
  ConvSpec many = from(R"({"n":1,"c":8,"k":12,"spatial":[7,9],"filter":[1,1]})");
  many.n = std::int64_t{1} << 31;
  many.spatial = {std::int64_t{1} << 31, std::int64_t{1} << 31};
  CHECK(many.output() == (Shape{std::int64_t{1} << 31, std::int64_t{1} << 31}));
  // 2**93 * 12 = 118842243771396506390315925504
  CHECK_THROWS(family::SpecError, many.outputs(),
               "ConvSpec: expected the product of (2147483648, 2147483648, 2147483648, 12) below 2**63 (the C++ "
               "engine's int64 limit), got 118842243771396506390315925504; use smaller sizes");
  CHECK_THROWS(family::SpecError, product({std::int64_t{1} << 40, -(std::int64_t{1} << 40)}),
               "ConvSpec: expected the product of (1099511627776, -1099511627776) below 2**63 (the C++ engine's int64 "
               "limit), got -1208925819614629174706176; use smaller sizes");
}

// The 2**31-byte limit on every tensor, both sides of it. Expected sizes are
// computed from the definition (bytes = element size x product of the shape).
constexpr std::int64_t kLimit = (std::int64_t{1} << 31) - 1;

std::string refusal(const std::string& what, const std::string& shape, std::int64_t nbytes, const std::string& fix) {
  return "ConvSpec: expected every tensor at most " + std::to_string(kLimit) +
         " bytes (2**31 - 1: the kernels' offsets are 32-bit), got the " + what + " " + shape + " of " +
         std::to_string(nbytes) + " bytes; " + fix;
}

std::string batch_fix(std::int64_t largest) {
  return "use a smaller batch (n at most " + std::to_string(largest) +
         "), or split the batch into launches of at most " + std::to_string(largest);
}

ROCKE_TEST(the_limit_is_what_an_i32_offset_reaches) { CHECK_EQ(kMaxTensorBytes, kLimit); }

ROCKE_TEST(a_tensor_of_2_31_bytes_is_refused_and_the_largest_below_is_taken) {
  // f16: 2**30 - 1 = 9 * 7 * 11 * 31 * 151 * 331 elements, 2**31 - 2 bytes.
  ConvSpec f16 = from(R"({"n":1,"c":331,"k":331,"spatial":[693,4681],"filter":[1,1]})");
  CHECK_EQ(2 * product(f16.input_shape()), kLimit - 1);
  // f32: 2**29 - 1 = 233 * 1103 * 2089 elements, 2**31 - 4 bytes.
  ConvSpec f32 = from(R"({"n":1,"c":233,"k":233,"spatial":[1103,2089],"filter":[1,1],"dtype":"f32"})");
  CHECK_EQ(4 * product(f32.input_shape()), kLimit - 3);
  // Exactly 2**31 bytes: the smallest tensor an i32 offset cannot cover.
  const std::string one = "even one sample is over the limit: split the spatial extent or the channels into launches";
  CHECK_THROWS(family::SpecError, from(R"({"n":1,"c":1024,"k":1,"spatial":[1024,1024],"filter":[1,1]})"),
               refusal("input", "(1, 1024, 1024, 1024)", kLimit + 1, one));
  CHECK_THROWS(family::SpecError, from(R"({"n":1,"c":1024,"k":1,"spatial":[512,1024],"filter":[1,1],"dtype":"f32"})"),
               refusal("input", "(1, 512, 1024, 1024)", kLimit + 1, one));
}

ROCKE_TEST(the_largest_batch_is_taken_and_one_more_is_refused) {
  // The issue's layer: 224x224x64 f32, 3x3 pad 1, NCHW here (spec_parity_test covers NHWC).
  const std::int64_t per_sample = std::int64_t{4} * 224 * 224 * 64;
  const std::int64_t largest = kLimit / per_sample;
  auto spec = [](std::int64_t n) {
    return from(R"({"n":)" + std::to_string(n) +
                R"(,"c":64,"k":64,"spatial":[224,224],"filter":[3,3],"pad":[1,1],"layout":"NCHW","dtype":"f32"})");
  };
  CHECK_EQ(spec(largest).n, largest);
  CHECK_THROWS(family::SpecError, spec(largest + 1),
               refusal("input", "(" + std::to_string(largest + 1) + ", 64, 224, 224)", per_sample * (largest + 1),
                       batch_fix(largest)));
  CHECK_THROWS(family::SpecError, spec(256),
               refusal("input", "(256, 64, 224, 224)", per_sample * 256, batch_fix(largest)));
}

ROCKE_TEST(the_output_and_the_weights_are_limited_too) {
  // c=8 in, k=128 out: the output is 16 times the input per sample.
  const std::int64_t out_per_sample = std::int64_t{2} * 64 * 64 * 128;
  const std::int64_t largest = kLimit / out_per_sample;
  auto spec = [](std::int64_t n) {
    return from(R"({"n":)" + std::to_string(n) + R"(,"c":8,"k":128,"spatial":[64,64],"filter":[1,1]})");
  };
  CHECK_EQ(spec(largest).n, largest);
  CHECK_THROWS(family::SpecError, spec(largest + 1),
               refusal("output", "(" + std::to_string(largest + 1) + ", 64, 64, 128)", out_per_sample * (largest + 1),
                       batch_fix(largest)));
  // 1x1 filters over 2**15 channels, bf16: k * 2**16 bytes of weights.
  const std::int64_t k = kLimit / (2 << 15);
  auto weights = [](std::int64_t k) {
    return from(R"({"n":1,"c":32768,"k":)" + std::to_string(k) + R"(,"spatial":[1,1],"filter":[1,1],"dtype":"bf16"})");
  };
  CHECK_EQ(weights(k).k, k);
  CHECK_THROWS(family::SpecError, weights(k + 1),
               refusal("weights", "(" + std::to_string(k + 1) + ", 1, 1, 32768)", (std::int64_t{2} << 15) * (k + 1),
                       "split the filters (k) into launches"));
}

ROCKE_TEST(check_tensor_bytes_words_a_familys_own_buffer_alike) {
  check_tensor_bytes("SplitK", "workspace", {kLimit / 4}, 4, "fewer splits");
  CHECK_THROWS(family::SpecError, check_tensor_bytes("SplitK", "workspace", {kLimit / 4 + 1}, 4, "fewer splits"),
               "SplitK: expected every tensor at most 2147483647 bytes (2**31 - 1: the kernels' offsets are 32-bit), "
               "got the workspace (536870912,) of 2147483648 bytes; fewer splits");
}

}  // namespace
}  // namespace rocke::conv

int main() { return rocke::testing::run_all(); }
