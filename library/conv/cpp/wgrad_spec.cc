#include "library/conv/cpp/wgrad_spec.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "platform/cpp/py/repr.h"
#include "platform/family/cpp/family.h"

namespace rocke::conv {
namespace {

using family::SpecError;

// wgrad_spec.MODES, in Python's order (the message lists them).
constexpr std::array<std::string_view, 3> kModes = {"none", "two_stage", "atomic"};
// from_json's fields, in Python's order.
constexpr std::array<std::string_view, 3> kFields = {"igemm", "split", "mode"};
constexpr std::int64_t kF32Bytes = 4;

template <std::size_t N>
std::string joined(const std::array<std::string_view, N>& names) {
  std::string out;
  for (std::string_view name : names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

WgradSpec WgradSpec::from_json(const json::Value& obj) {
  bool exact = obj.is_object() && obj.as_object().size() == kFields.size();
  if (exact) {
    for (std::string_view f : kFields) exact = exact && obj.as_object().contains(f);
  }
  if (!exact) {
    throw SpecError("WgradSpec: expected a JSON object with exactly the fields " + joined(kFields) + ", got " +
                    json::repr(obj));
  }
  const json::Object& fields = obj.as_object();
  const json::Value& igemm = fields.at("igemm");
  // __post_init__, in its order: only a dict becomes an IgemmSpec.
  if (!igemm.is_object()) throw SpecError("WgradSpec.igemm: expected an IgemmSpec, got " + json::repr(igemm));
  WgradSpec s;
  s.igemm = IgemmSpec::from_json(igemm);
  if (s.conv().bias_relu) {  // dw through a relu needs its mask on dy, which this kernel never sees
    throw SpecError(
        "ConvSpec.bias_relu: expected False (conv_igemm_wgrad computes the weight gradient of the convolution alone), "
        "got True; mask dy by the relu (0 where the forward output is 0) and drop bias_relu");
  }
  const json::Value& split = fields.at("split");
  if (!split.above_int64() && (!split.is_int() || split.as_int() < 1)) {
    throw SpecError("WgradSpec.split: expected a positive int, got " + json::repr(split));
  }
  if (split.above_int64()) {
    throw SpecError("WgradSpec.split: expected a positive int " + std::string(kBelow2To63) + ", got " +
                    json::repr(split));
  }
  s.split = split.as_int();
  const json::Value& mode = fields.at("mode");
  if (!mode.is_str() || std::find(kModes.begin(), kModes.end(), mode.as_str()) == kModes.end()) {
    throw SpecError("WgradSpec.mode: expected one of " + joined(kModes) + ", got " + json::repr(mode));
  }
  s.mode = mode.as_str();
  if ((s.mode == "none") != (s.split == 1)) {
    throw SpecError(
        "WgradSpec.split: expected 1 with mode 'none' and at least 2 with 'two_stage' or 'atomic', got split " +
        std::to_string(s.split) + " with mode " + py::repr(s.mode));
  }
  if (s.split > s.steps()) {
    throw SpecError("WgradSpec.split: expected at most " + std::to_string(s.steps()) + " (one " +
                    std::to_string(s.igemm.block_k) + "-deep k step of the " + std::to_string(s.gemm()[2]) +
                    "-long reduction per split), got " + std::to_string(s.split) + "; take a smaller split");
  }
  if (s.mode != "none") {  // the split modes' f32 output: dw, or the workspace of S of them
    if (s.mode == "two_stage") {
      Shape shape = {s.split};
      const Shape dw = s.conv().weight_shape();
      shape.insert(shape.end(), dw.begin(), dw.end());
      check_tensor_bytes("WgradSpec", "f32 workspace", shape, kF32Bytes, "take a smaller split");
    } else {
      check_tensor_bytes("WgradSpec", "f32 dw", s.conv().weight_shape(), kF32Bytes,
                         "split the filters (k) into launches");
    }
  }
  return s;
}

json::Value WgradSpec::to_json() const {
  return json::Object{{"igemm", igemm.to_json()}, {"split", split}, {"mode", mode}};
}

std::array<std::int64_t, 3> WgradSpec::gemm() const {
  const ConvSpec& c = conv();
  std::int64_t pixels = c.n, taps = 1;
  const Shape out = c.output();
  for (std::size_t i = 0; i < out.size(); ++i) {
    pixels *= out[i];
    taps *= c.filter[i];
  }
  return {c.k_per_group(), c.c_per_group() * taps, pixels};
}

std::int64_t WgradSpec::steps() const { return ceil_div(gemm()[2], igemm.block_k); }

std::pair<std::int64_t, std::int64_t> WgradSpec::rows(std::int64_t part) const {
  const std::int64_t step = igemm.block_k;
  return {step * (part * steps() / split), std::min(step * ((part + 1) * steps() / split), gemm()[2])};
}

std::int64_t WgradSpec::elements() const { return product(conv().weight_shape()); }

std::int64_t WgradSpec::out_elements() const { return elements() * (mode == "two_stage" ? split : 1); }

json::Value wgrad_normalised(const json::Value& spec) { return WgradSpec::from_json(spec).to_json(); }

}  // namespace rocke::conv
