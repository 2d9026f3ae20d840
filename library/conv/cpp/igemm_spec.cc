#include "library/conv/cpp/igemm_spec.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "library/conv/cpp/row_runs.h"
#include "platform/family/cpp/family.h"
#include "platform/family/cpp/fields.h"

namespace rocke::conv {
namespace {

// igemm_tiles.DTYPES, in Python's order (the message lists them).
constexpr std::array<std::string_view, 2> kDtypes = {"f16", "bf16"};
// ("conv",) + tile::kFields, in declaration order.
constexpr std::array<std::string_view, 7> kFields = {"conv",    "mma",     "block_m", "block_n",
                                                     "block_k", "waves_m", "waves_n"};
// The fields a spec spells only when they are not their default, in Python's order.
constexpr std::array<std::string_view, 2> kOptional = {"split_k", "row_runs"};

}  // namespace

IgemmSpec IgemmSpec::from_json(const json::Value& obj) {
  // Exactly kFields, plus any of kOptional (each left out at its default, as Python's to_json writes it).
  bool exact = obj.is_object();
  if (exact) {
    std::size_t optional = 0;
    for (std::string_view f : kOptional) optional += obj.as_object().contains(f) ? 1 : 0;
    exact = obj.as_object().size() == kFields.size() + optional;
    for (std::string_view f : kFields) exact = exact && obj.as_object().contains(f);
  }
  if (!exact) {
    json::Array allowed = family::listed(kFields);
    for (std::string_view f : kOptional) allowed.emplace_back(std::string(f));
    throw IgemmSpecError("IgemmSpec", obj,
                         "a JSON object with exactly the fields " + family::joined(kFields) + " (and optionally " +
                             family::joined(kOptional) + ")",
                         std::move(allowed));
  }
  const json::Object& fields = obj.as_object();
  // Tile.of, then __post_init__, in its order: only a dict becomes a ConvSpec.
  IgemmSpec s;
  try {
    s.tile = tile::Tile::of(fields, "IgemmSpec.tile", "conv.igemm_tiles.IgemmSpecError");
  } catch (const errors::FieldError& e) {
    throw family::Refusal(e.python_class(), e.field(), e.value(), e.allowed(), e.what());
  }
  const json::Value& conv = fields.at("conv");
  if (!conv.is_object()) throw IgemmSpecError("IgemmSpec.conv", conv, "a ConvSpec (a JSON object)");
  s.conv = ConvSpec::from_json(conv);
  if (std::find(kDtypes.begin(), kDtypes.end(), s.conv.dtype) == kDtypes.end()) {
    throw IgemmSpecError("IgemmSpec.conv.dtype", s.conv.dtype, "one of " + family::joined(kDtypes) + " (matrix cores)",
                         family::listed(kDtypes),
                         "conv_direct_fwd and conv_img2col compute an f32 forward convolution; no family computes an "
                         "f32 data gradient");
  }
  const std::vector<std::string> ops = tile::shapes(s.conv.dtype);
  if (std::find(ops.begin(), ops.end(), s.tile.mma) == ops.end()) {
    std::string list;
    for (const std::string& op : ops) list += (list.empty() ? "" : ", ") + op;
    throw IgemmSpecError("IgemmSpec.tile.mma", s.tile.mma,
                         "a matrix-core shape of " + s.conv.dtype + " inputs (" + list + ")", family::listed(ops));
  }
  if (fields.contains("row_runs")) {
    const json::Value& v = fields.at("row_runs");
    if (!v.is_bool()) throw IgemmSpecError("IgemmSpec.row_runs", v, "true or false");
    s.row_runs = v.as_bool();
  }
  if (s.row_runs) {
    if (const std::optional<std::string> why = row_runs_refusal(s.conv, s.tile.block_k)) {
      throw IgemmSpecError("IgemmSpec.row_runs", s.row_runs, "a layer whose filter rows are runs: " + *why, nullptr,
                           "leave row_runs false");
    }
  }
  if (fields.contains("split_k")) {
    const json::Value& v = fields.at("split_k");
    const std::int64_t steps = s.k_steps();
    if (!v.is_int() || v.as_int() < 1 || v.as_int() > steps) {
      throw IgemmSpecError("IgemmSpec.split_k", v,
                           "an int from 1 to " + std::to_string(steps) + " (the reduction's " +
                               std::to_string(s.gemm()[2]) + " in k steps of " + std::to_string(s.tile.block_k) +
                               ": each split reduces whole steps)",
                           steps, "take a split in that range (conv.split_k.select_split_k_fwd picks one)");
    }
    s.split_k = v.as_int();
  }
  if (s.split_k > 1 && s.row_runs) {
    throw IgemmSpecError("IgemmSpec.split_k", s.split_k,
                         "1 for a spec with row_runs (its reduction is padded by filter rows)", 1, "leave split_k 1");
  }
  if (s.split_k > 1) {
    Shape workspace = s.conv.output_shape();
    workspace.insert(workspace.begin(), s.split_k);
    check_tensor_bytes("IgemmSpec.split_k", "f32 workspace", workspace, 4, "take a smaller split");
  }
  return s;
}

json::Value IgemmSpec::to_json() const {
  json::Object out = tile.to_json();
  out.emplace("conv", conv.to_json());
  if (split_k != 1) out.emplace("split_k", split_k);  // only a split spec spells it (Python's to_json)
  if (row_runs) out.emplace("row_runs", true);
  return out;
}

std::array<std::int64_t, 3> IgemmSpec::gemm() const {
  std::int64_t pixels = conv.n, taps = 1;
  const Shape out = conv.output();
  for (std::size_t i = 0; i < out.size(); ++i) {
    pixels *= out[i];
    taps *= conv.filter[i];
  }
  if (row_runs) return {pixels, conv.k_per_group(), filter_rows(conv) * tile.block_k};
  return {pixels, conv.k_per_group(), conv.c_per_group() * taps};
}

json::Value igemm_normalised(const json::Value& spec) { return IgemmSpec::from_json(spec).to_json(); }

}  // namespace rocke::conv
