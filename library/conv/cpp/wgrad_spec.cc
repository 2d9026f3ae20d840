#include "library/conv/cpp/wgrad_spec.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/family/cpp/fields.h"

namespace rocke::conv {
namespace {

constexpr std::string_view kWgradSpecError = "conv.wgrad_spec.WgradSpecError";

// Python's WgradSpecError for `field` and `value`; `choices` is what it
// allows as data (a list, a limit) or null; the message says `allowed`, then `fix`.
[[noreturn]] void refuse(const std::string& field, const json::Value& value, std::string_view allowed,
                         json::Value choices = nullptr, std::string_view fix = "") {
  throw family::SpecError(std::string(kWgradSpecError), field, value, std::move(choices),
                          errors::worded(field, allowed, value, fix));
}

// wgrad_spec.MODES, in Python's order (the message lists them).
constexpr std::array<std::string_view, 3> kModes = {"none", "two_stage", "atomic"};
// from_json's fields, in Python's order.
constexpr std::array<std::string_view, 3> kFields = {"igemm", "split", "mode"};
constexpr std::int64_t kF32Bytes = 4;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

WgradSpec WgradSpec::from_json(const json::Value& obj) {
  bool exact = obj.is_object() && obj.as_object().size() == kFields.size();
  if (exact) {
    for (std::string_view f : kFields) exact = exact && obj.as_object().contains(f);
  }
  if (!exact)
    refuse("WgradSpec", obj, "a JSON object with exactly the fields " + family::joined(kFields),
           family::listed(kFields));
  const json::Object& fields = obj.as_object();
  const json::Value& igemm = fields.at("igemm");
  // __post_init__, in its order: only a dict becomes an IgemmSpec.
  if (!igemm.is_object()) refuse("WgradSpec.igemm", igemm, "an IgemmSpec (a JSON object)");
  WgradSpec s;
  s.igemm = IgemmSpec::from_json(igemm);
  // dw through an activation needs its derivative on dy, which this kernel never sees.
  if (auto found = s.conv().epilogue_field()) {
    const auto& [field, value, fallback] = *found;
    refuse("ConvSpec." + field, value,
           json::canonical(fallback) + " (conv_igemm_wgrad computes the weight gradient of the convolution alone)",
           json::Array{fallback}, "apply the epilogue's derivative to dy and drop " + field);
  }
  const json::Value& split = fields.at("split");
  if (!split.above_int64() && (!split.is_int() || split.as_int() < 1))
    refuse("WgradSpec.split", split, "a positive int");
  if (split.above_int64()) {
    refuse("WgradSpec.split", split, "a positive int " + std::string(kBelow2To63), kMaxInt64);
  }
  s.split = split.as_int();
  const json::Value& mode = fields.at("mode");
  if (!mode.is_str() || std::find(kModes.begin(), kModes.end(), mode.as_str()) == kModes.end()) {
    refuse("WgradSpec.mode", mode, "one of " + family::joined(kModes), family::listed(kModes));
  }
  s.mode = mode.as_str();
  if ((s.mode == "none") != (s.split == 1)) {
    refuse("WgradSpec.split", json::Array{s.split, s.mode},
           "[split, mode]: split 1 with mode none, at least 2 with two_stage or atomic");
  }
  if (s.split > s.steps()) {
    refuse("WgradSpec.split", s.split,
           "at most " + std::to_string(s.steps()) + " (one " + std::to_string(s.igemm.tile.block_k) +
               "-deep k step of the " + std::to_string(s.gemm()[2]) + "-long reduction per split)",
           s.steps(), "take a smaller split");
  }
  if (s.mode != "none") {  // the split modes' f32 output: dw, or the workspace of S of them
    if (s.mode == "two_stage") {
      Shape shape = {s.split};
      const Shape dw = s.conv().weight_shape();
      shape.insert(shape.end(), dw.begin(), dw.end());
      check_tensor_bytes("WgradSpec", "f32 workspace", shape, kF32Bytes, "take a smaller split", "WgradSpec.split",
                         kWgradSpecError);
    } else {
      check_tensor_bytes("WgradSpec", "f32 dw", s.conv().weight_shape(), kF32Bytes,
                         "split the filters (k) into launches", "WgradSpec.mode", kWgradSpecError);
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

std::int64_t WgradSpec::steps() const { return ceil_div(gemm()[2], igemm.tile.block_k); }

std::pair<std::int64_t, std::int64_t> WgradSpec::rows(std::int64_t part) const {
  const std::int64_t step = igemm.tile.block_k;
  return {step * (part * steps() / split), std::min(step * ((part + 1) * steps() / split), gemm()[2])};
}

std::int64_t WgradSpec::elements() const { return product(conv().weight_shape()); }

std::int64_t WgradSpec::out_elements() const { return elements() * (mode == "two_stage" ? split : 1); }

json::Value wgrad_normalised(const json::Value& spec) { return WgradSpec::from_json(spec).to_json(); }

}  // namespace rocke::conv
