// ConvSpec in C++ against what Python's library/conv/spec.py gives: the
// expected values and refusals' facts (class, field, value, allowed) below
// are Python's ConvSpec.from_json's for the same JSON (spec_parity_test
// checks many more against Python itself); the messages are this engine's.
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

// The canonical JSON of the facts of the SpecError `make` throws, or "none".
template <class F>
std::string facts(F make) {
  try {
    make();
  } catch (const family::SpecError& e) {
    return json::canonical(e.facts());
  }
  return "none";
}

#define CHECK_FACTS(expr, expected) CHECK_EQ(facts([&] { (void)(expr); }), std::string(expected))
#define CHECK_SPEC_FACTS(extra, expected) CHECK_FACTS(spec(extra), expected)

ROCKE_TEST(defaults_are_filled_and_to_json_has_every_field) {
  CHECK_EQ(json::canonical(spec("").to_json()),
           std::string(R"({"activation":"none","bias":false,"c":8,"dilation":[1,1],"dtype":"f16","filter":[3,3],)"
                       R"("groups":1,"k":12,"layout":"NHWC","n":1,"pad":[0,0],"residual":"none","scale":"1",)"
                       R"("spatial":[7,9],"stride":[1,1]})"));
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
  const std::string fields =
      R"(["n","c","k","spatial","filter","stride","pad","dilation","groups","layout","dtype","bias","activation",)"
      R"("residual","scale"])";
  CHECK_FACTS(from(R"([1,2])"), R"(["SpecError","ConvSpec",[1,2],)" + fields + "]");
  CHECK_SPEC_FACTS(R"("strides":[1,1])", R"(["SpecError","ConvSpec.strides","strides",)" + fields + "]");
  CHECK_FACTS(from(R"({"n":1,"c":8,"spatial":[7,9],"filter":[3,3]})"), R"(["SpecError","ConvSpec.k",null,null])");
}

ROCKE_TEST(each_bad_field_by_its_facts) {
  CHECK_SPEC_FACTS(R"("groups":5)", R"(["SpecError","ConvSpec.groups",5,null])");
  CHECK_FACTS(from(R"({"n":true,"c":8,"k":12,"spatial":[7,9],"filter":[3,3]})"),
              R"(["SpecError","ConvSpec.n",true,null])");
  CHECK_SPEC_FACTS(R"("spatial":[7])", R"(["SpecError","ConvSpec.spatial",[7],null])");
  CHECK_SPEC_FACTS(R"("stride":5)", R"(["SpecError","ConvSpec.stride",5,null])");
  CHECK_SPEC_FACTS(R"("pad":[-1,0])", R"(["SpecError","ConvSpec.pad",[-1,0],null])");
  CHECK_SPEC_FACTS(R"("dilation":[1,true])", R"(["SpecError","ConvSpec.dilation",[1,true],null])");
  CHECK_SPEC_FACTS(R"("layout":"nhwc")", R"(["SpecError","ConvSpec.layout","nhwc",["NHWC","NCHW"]])");
  CHECK_SPEC_FACTS(R"("dtype":null)", R"(["SpecError","ConvSpec.dtype",null,["f32","f16","bf16"]])");
  CHECK_SPEC_FACTS(R"("bias":0)", R"(["SpecError","ConvSpec.bias",0,null])");
  CHECK_SPEC_FACTS(R"("activation":"gelu")", R"(["SpecError","ConvSpec.activation","gelu",)"
                                             R"(["none","relu","relu6","gelu_tanh","gelu_erf"]])");
  CHECK_SPEC_FACTS(R"("residual":"before")", R"(["SpecError","ConvSpec.residual","before",)"
                                             R"(["none","before_activation","after_activation"]])");
  CHECK_SPEC_FACTS(R"("scale":"1e-50")", R"(["SpecError","ConvSpec.scale","1e-50",null])");
  CHECK_SPEC_FACTS(R"("filter":[],"stride":[])", R"(["SpecError","ConvSpec.filter",[],null])");
  CHECK_SPEC_FACTS(R"("n":9223372036854775808)",
                   R"(["SpecError","ConvSpec.n",9223372036854775808,9223372036854775807])");
}

ROCKE_TEST(the_messages_say_what_was_received_and_what_is_allowed) {
  CHECK_THROWS(family::SpecError, spec(R"("layout":"nhwc")"),
               R"(ConvSpec.layout: expected one of NHWC, NCHW, got "nhwc")");
  CHECK_THROWS(family::SpecError, spec(R"("strides":[1,1])"),
               "ConvSpec.strides: expected one of the fields n, c, k, spatial, filter, stride, pad, dilation, groups, "
               "layout, dtype, bias, activation, residual, scale, got \"strides\"; drop it or fix its name");
}

ROCKE_TEST(the_filter_must_fit_the_padded_input) {
  CHECK_SPEC_FACTS(R"("filter":[9,3])", R"(["SpecError","ConvSpec.filter",[9,3],null])");
  // (1 - 3 - 1) // 2 + 1 is -1 in Python; truncating division would say 0.
  CHECK_FACTS(from(R"({"n":1,"c":8,"k":12,"spatial":[1,9],"filter":[4,3],"stride":[2,1]})"),
              R"(["SpecError","ConvSpec.filter",[4,3],null])");
  // A dilated extent past int64 is larger than any padded input.
  CHECK_SPEC_FACTS(R"("filter":[4611686018427387904,3],"dilation":[4611686018427387904,1])",
                   R"(["SpecError","ConvSpec.filter",[4611686018427387904,3],null])");
}

ROCKE_TEST(a_padded_size_past_int64_is_refused_naming_pad) {
  CHECK_SPEC_FACTS(R"("spatial":[9223372036854775807,9],"pad":[1,0])",
                   R"(["SpecError","ConvSpec.pad",[1,0],9223372036854775807])");
  // 7 + 2 * (2**62 - 4) = 2**63 - 1: the largest padded size taken; its output is refused by bytes.
  CHECK_SPEC_FACTS(R"("pad":[4611686018427387900,0])",
                   R"(["SpecError","ConvSpec.output",[1,9223372036854775805,7,12],2147483647])");
}

// from_json refuses every tensor over 2**31 - 1 bytes, so a spec whose sizes
// need more than 64 bits can only be made by hand; its sizes are refused
// when they are asked for, never wrapped.
ROCKE_TEST(sizes_beyond_64_bits_are_refused_never_wrapped) {
  ConvSpec wide = from(R"({"n":1,"c":8,"k":12,"spatial":[7,9],"filter":[3,3]})");
  wide.filter = {std::int64_t{1} << 62, 3};
  wide.dilation = {4, 1};
  CHECK_FACTS(wide.output(), R"(["SpecError","ConvSpec.filter",[4611686018427387904,3],null])");
  ConvSpec many = from(R"({"n":1,"c":8,"k":12,"spatial":[7,9],"filter":[1,1]})");
  many.n = std::int64_t{1} << 31;
  many.spatial = {std::int64_t{1} << 31, std::int64_t{1} << 31};
  CHECK(many.output() == (Shape{std::int64_t{1} << 31, std::int64_t{1} << 31}));
  CHECK_FACTS(many.outputs(), R"(["SpecError","ConvSpec",[2147483648,2147483648,2147483648,12],9223372036854775807])");
}

// The 2**31-byte limit on every tensor, both sides of it. Expected sizes are
// computed from the definition (bytes = element size x product of the shape).
constexpr std::int64_t kLimit = (std::int64_t{1} << 31) - 1;

// The facts of a tensor's refusal: ConvSpec.WHAT, its shape, the limit.
std::string refusal(const std::string& what, const std::string& shape) {
  return R"(["SpecError","ConvSpec.)" + what + R"(",)" + shape + "," + std::to_string(kLimit) + "]";
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
  CHECK_FACTS(from(R"({"n":1,"c":1024,"k":1,"spatial":[1024,1024],"filter":[1,1]})"),
              refusal("input", "[1,1024,1024,1024]"));
  CHECK_FACTS(from(R"({"n":1,"c":1024,"k":1,"spatial":[512,1024],"filter":[1,1],"dtype":"f32"})"),
              refusal("input", "[1,512,1024,1024]"));
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
  CHECK_FACTS(spec(largest + 1), refusal("input", "[" + std::to_string(largest + 1) + ",64,224,224]"));
  CHECK_FACTS(spec(256), refusal("input", "[256,64,224,224]"));
  // The fix names the largest batch.
  CHECK_THROWS(family::SpecError, spec(256),
               "ConvSpec.input: expected every tensor at most 2147483647 bytes (the kernels' offsets are 32-bit), got "
               "the input [256,64,224,224], larger; use a smaller batch (n at most " +
                   std::to_string(largest) + "), or split it into launches");
}

ROCKE_TEST(the_output_and_the_weights_are_limited_too) {
  // c=8 in, k=128 out: the output is 16 times the input per sample.
  const std::int64_t out_per_sample = std::int64_t{2} * 64 * 64 * 128;
  const std::int64_t largest = kLimit / out_per_sample;
  auto spec = [](std::int64_t n) {
    return from(R"({"n":)" + std::to_string(n) + R"(,"c":8,"k":128,"spatial":[64,64],"filter":[1,1]})");
  };
  CHECK_EQ(spec(largest).n, largest);
  CHECK_FACTS(spec(largest + 1), refusal("output", "[" + std::to_string(largest + 1) + ",64,64,128]"));
  // 1x1 filters over 2**15 channels, bf16: k * 2**16 bytes of weights.
  const std::int64_t k = kLimit / (2 << 15);
  auto weights = [](std::int64_t k) {
    return from(R"({"n":1,"c":32768,"k":)" + std::to_string(k) + R"(,"spatial":[1,1],"filter":[1,1],"dtype":"bf16"})");
  };
  CHECK_EQ(weights(k).k, k);
  CHECK_FACTS(weights(k + 1), refusal("weights", "[" + std::to_string(k + 1) + ",1,1,32768]"));
}

ROCKE_TEST(check_tensor_bytes_refuses_a_familys_own_buffer_alike) {
  check_tensor_bytes("SplitK", "workspace", {kLimit / 4}, 4, "fewer splits");
  CHECK_FACTS(check_tensor_bytes("SplitK", "workspace", {kLimit / 4 + 1}, 4, "fewer splits"),
              R"(["SpecError","SplitK",[536870912],2147483647])");
  CHECK_FACTS(
      check_tensor_bytes("S", "w", {kLimit, kLimit, kLimit}, 4, "", "S.split", "conv.wgrad_spec.WgradSpecError"),
      R"(["WgradSpecError","S.split",[2147483647,2147483647,2147483647],2147483647])");
}

}  // namespace
}  // namespace rocke::conv

int main() { return rocke::testing::run_all(); }
