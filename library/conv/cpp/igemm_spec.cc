#include "library/conv/cpp/igemm_spec.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/arch/cpp/mma_forms_data.h"
#include "platform/family/cpp/family.h"

namespace rocke::conv {
namespace {

// igemm_tiles.DTYPES, in Python's order (the message lists them).
constexpr std::array<std::string_view, 2> kDtypes = {"f16", "bf16"};
// igemm_tiles.MAX_TILE: the tile's sizes are int in tile::GemmConfig (and
// i32 in the kernel), and no product of two of them passes 64 bits.
constexpr std::int64_t kMaxTile = INT32_MAX;
// ("conv",) + igemm_tiles._TILE_FIELDS, in declaration order.
constexpr std::array<std::string_view, 7> kFields = {"conv",    "mma",     "block_m", "block_n",
                                                     "block_k", "waves_m", "waves_n"};

template <std::size_t N>
std::string joined(const std::array<std::string_view, N>& names) {
  std::string out;
  for (std::string_view name : names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

template <class Names>
json::Array listed(const Names& names) {
  json::Array out;
  for (const auto& name : names) out.emplace_back(std::string(name));
  return out;
}

// The "MxNxK" shapes of the f32-accumulating matrix ops on `dtype` inputs,
// sorted as Python sorts the strings.
std::vector<std::string> shapes_of(std::string_view dtype) {
  std::set<std::string> shapes;
  for (const auto& f : data::mma_forms::kForms) {
    if (f.a == dtype && f.c == "f32") {
      shapes.insert(std::to_string(f.m) + "x" + std::to_string(f.n) + "x" + std::to_string(f.k));
    }
  }
  return {shapes.begin(), shapes.end()};
}

}  // namespace

IgemmSpec IgemmSpec::from_json(const json::Value& obj) {
  // Exactly kFields, and split_k (optional: the JSON of an unsplit spec predates it).
  bool exact = obj.is_object();
  if (exact) {
    const std::size_t optional = obj.as_object().contains("split_k") ? 1 : 0;
    exact = obj.as_object().size() == kFields.size() + optional;
    for (std::string_view f : kFields) exact = exact && obj.as_object().contains(f);
  }
  if (!exact) {
    json::Array allowed = listed(kFields);
    allowed.emplace_back("split_k");
    throw IgemmSpecError("IgemmSpec", obj,
                         "a JSON object with exactly the fields " + joined(kFields) + " (and optionally split_k)",
                         std::move(allowed));
  }
  const json::Object& fields = obj.as_object();
  const json::Value& conv = fields.at("conv");
  // __post_init__, in its order: only a dict becomes a ConvSpec.
  if (!conv.is_object()) throw IgemmSpecError("IgemmSpec.conv", conv, "a ConvSpec (a JSON object)");
  IgemmSpec s;
  s.conv = ConvSpec::from_json(conv);
  if (std::find(kDtypes.begin(), kDtypes.end(), s.conv.dtype) == kDtypes.end()) {
    throw IgemmSpecError("IgemmSpec.conv.dtype", s.conv.dtype, "one of " + joined(kDtypes) + " (matrix cores)",
                         listed(kDtypes),
                         "conv_direct_fwd and conv_img2col compute an f32 forward convolution; no family computes an "
                         "f32 data gradient");
  }
  const std::pair<const char*, std::int64_t*> tile[] = {{"block_m", &s.block_m},
                                                        {"block_n", &s.block_n},
                                                        {"block_k", &s.block_k},
                                                        {"waves_m", &s.waves_m},
                                                        {"waves_n", &s.waves_n}};
  for (const auto& [name, slot] : tile) {
    const json::Value& v = fields.at(name);
    const std::string field = "IgemmSpec." + std::string(name);
    if (!v.above_int64() && (!v.is_int() || v.as_int() < 1)) throw IgemmSpecError(field, v, "a positive int");
    if (v.above_int64() || v.as_int() > kMaxTile) {
      throw IgemmSpecError(field, v, "a positive int at most " + std::to_string(kMaxTile) + " (a tile size is an i32)",
                           kMaxTile);
    }
    *slot = v.as_int();
  }
  const std::vector<std::string> ops = shapes_of(s.conv.dtype);
  const json::Value& mma = fields.at("mma");
  if (!mma.is_str() || std::find(ops.begin(), ops.end(), mma.as_str()) == ops.end()) {
    std::string list;
    for (const std::string& op : ops) list += (list.empty() ? "" : ", ") + op;
    throw IgemmSpecError("IgemmSpec.mma", mma, "a matrix-core shape of " + s.conv.dtype + " inputs (" + list + ")",
                         listed(ops));
  }
  s.mma = mma.as_str();
  if (fields.contains("split_k")) {
    const json::Value& v = fields.at("split_k");
    const std::int64_t steps = s.k_steps();
    if (!v.is_int() || v.as_int() < 1 || v.as_int() > steps) {
      throw IgemmSpecError("IgemmSpec.split_k", v,
                           "an int from 1 to " + std::to_string(steps) + " (the reduction's " +
                               std::to_string(s.gemm()[2]) + " in k steps of " + std::to_string(s.block_k) +
                               ": each split reduces whole steps)",
                           steps, "take a split in that range (conv.split_k.select_split_k_fwd picks one)");
    }
    s.split_k = v.as_int();
  }
  if (s.split_k > 1) {
    Shape workspace = s.conv.output_shape();
    workspace.insert(workspace.begin(), s.split_k);
    check_tensor_bytes("IgemmSpec.split_k", "f32 workspace", workspace, 4, "take a smaller split");
  }
  return s;
}

json::Value IgemmSpec::to_json() const {
  json::Object out{
      {"conv", conv.to_json()}, {"mma", mma},         {"block_m", block_m}, {"block_n", block_n},
      {"block_k", block_k},     {"waves_m", waves_m}, {"waves_n", waves_n},
  };
  if (split_k != 1) out.emplace("split_k", split_k);  // only a split spec spells it (Python's to_json)
  return out;
}

std::array<std::int64_t, 3> IgemmSpec::gemm() const {
  std::int64_t pixels = conv.n, taps = 1;
  const Shape out = conv.output();
  for (std::size_t i = 0; i < out.size(); ++i) {
    pixels *= out[i];
    taps *= conv.filter[i];
  }
  return {pixels, conv.k_per_group(), conv.c_per_group() * taps};
}

json::Value igemm_normalised(const json::Value& spec) { return IgemmSpec::from_json(spec).to_json(); }

}  // namespace rocke::conv
