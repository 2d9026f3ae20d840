// The convolution problem, mirroring library/conv/spec.py: a spec read from
// its JSON (ConvSpec.from_json), validated field by field in Python's order
// (rocke::family::SpecError with Python's class, field and values; the
// messages are this engine's own), and written back (to_json). Shapes and
// sizes as the Python properties give them.
//
//   ConvSpec s = ConvSpec::from_json(json::parse(R"({"n":1,"c":8,"k":4,"spatial":[7,9],"filter":[3,3]})"));
//   s.output()         // {5, 7}
//   s.to_json()        // every field, the defaults filled in
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "platform/cpp/json/json.h"

namespace rocke::conv {

using Shape = std::vector<std::int64_t>;

struct ConvSpec {
  std::int64_t n = 0;
  std::int64_t c = 0;
  std::int64_t k = 0;
  Shape spatial;  // (H, W) or (D, H, W)
  Shape filter;   // (R, S) or (T, R, S)
  Shape stride;
  Shape pad;
  Shape dilation;
  std::int64_t groups = 1;
  std::string layout;               // "NHWC" (channels-last) or "NCHW"
  std::string dtype;                // "f32", "f16" or "bf16"
  bool bias = false;                // K f32 values added
  std::string activation = "none";  // tile::kActivations
  std::string residual = "none";    // "none" or one of tile::kResiduals
  std::string scale = "1";          // a decimal string (tile::scale_value)

  // ConvSpec.from_json(obj): rocke::family::SpecError with Python's facts.
  static ConvSpec from_json(const json::Value& obj);
  // ConvSpec.to_json(): every field, tuples as lists.
  json::Value to_json() const;

  // ConvSpec.epilogue_field(): the first epilogue field that changes the
  // output, as (field, value, default), or nullopt.
  std::optional<std::tuple<std::string, json::Value, json::Value>> epilogue_field() const;
  // The epilogue keywords (tile::EpilogueOptions' activation, residual_at, scale; tile.gemm.spec_epilogue).
  std::string residual_at() const { return residual == "none" ? "before_activation" : residual; }
  double scale_value() const;
  int dims() const { return static_cast<int>(spatial.size()); }
  Shape output() const;
  bool channels_last() const { return layout == "NHWC"; }
  std::int64_t c_per_group() const { return c / groups; }
  std::int64_t k_per_group() const { return k / groups; }
  Shape input_shape() const;
  Shape output_shape() const;
  Shape weight_shape() const;
  // The number of outputs (math.prod(output_shape())). output(), the shapes
  // and outputs() throw SpecError for a size of 2**63 or more, which only a
  // spec made by hand, not by from_json, can have.
  std::int64_t outputs() const;
};

// spec.py's MAX_TENSOR_BYTES: every tensor of a conv kernel is at most this
// many bytes, because the kernels' offsets are i32 (spec.py says why the
// spec refuses rather than widen them). ConvSpec::from_json checks the
// input, weights and output.
constexpr std::int64_t kMaxTensorBytes = (std::int64_t{1} << 31) - 1;

// spec.py's MAX_INT64: a size past it (json::Value::above_int64) is
// refused, by both engines, before any arithmetic on it; so is a padded size
// (spatial + 2 * pad) past it, which keeps every output size an int64.
constexpr std::int64_t kMaxInt64 = INT64_MAX;
constexpr std::string_view kBelow2To63 = "below 2**63 (the C++ engine's int64 limit)";

// spec.check_tensor_bytes: SpecError of class `python_class` if tensor
// `what` of `shape` (elements of `elem_bytes`) is over the limit; its facts
// are `field` (`owner` if empty), the shape and kMaxTensorBytes; `fix` says
// what to do. For a family's own buffers (a split-K workspace) too.
void check_tensor_bytes(std::string_view owner, std::string_view what, const Shape& shape, std::int64_t elem_bytes,
                        std::string_view fix, std::string_view field = "",
                        std::string_view python_class = "conv.spec.SpecError");

// ConvSpec.from_json(spec).to_json(): what a conv family gives the registry
// as its spec_json.
json::Value normalised(const json::Value& spec);

// math.prod(sizes); SpecError if it needs more than 64 bits.
std::int64_t product(const Shape& sizes);

}  // namespace rocke::conv
