#include "library/gemm/cpp/spec.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/family/cpp/fields.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/gemm.h"

namespace rocke::gemm {
namespace {

constexpr std::string_view kSpecError = "gemm.spec.SpecError";

// spec.py's DTYPES, OUTS and LAYOUTS, in Python's order (messages list them).
constexpr std::array<std::string_view, 3> kDtypes = {"f16", "bf16", "fp8"};
constexpr std::array<std::string_view, 3> kOuts = {"f16", "bf16", "f32"};
constexpr std::array<std::string_view, 2> kLayouts = {"row", "col"};

// The JSON fields in declaration order, the tile's (tile::kFields) in its
// place; the first 11 have no default.
constexpr std::array<std::string_view, 17> kFields = {
    "m",       "n",       "k",        "dtype",    "out",  "mma",        "block_m",  "block_n", "block_k",
    "waves_m", "waves_n", "layout_a", "layout_b", "bias", "activation", "residual", "scale",
};
// tile.gemm.ACTIVATIONS and RESIDUAL_FIELD: the epilogue's choices.
constexpr auto kActivations = std::to_array(tile::kActivations);
constexpr std::array<std::string_view, 3> kResidualField = {"none", tile::kResiduals[0], tile::kResiduals[1]};
constexpr std::size_t kRequired = 11;
// spec.py's MAX_INT: m, n and k are i32 in the kernel, and so is every
// tensor's size in bytes.
constexpr std::int64_t kMaxInt = family::kMaxInt;

constexpr family::SpecRefusal fail(kSpecError, "GemmSpec");

// One tensor the kernel addresses (GemmSpec.tensors): its name, stored
// shape, element bytes and its sizes' fields in the order a message names them.
struct Tensor {
  std::string what;
  std::vector<std::int64_t> shape;
  std::int64_t elem;
  std::vector<std::pair<std::string_view, std::int64_t>> sizes;
};

// GemmSpec._check_tensors: fields are at most kMaxInt, so a tensor's bytes
// (two sizes and at most 4 bytes) fit in 64 bits.
void check_tensors(const GemmSpec& s) {
  const std::int64_t ab = elem(s.dtype)->nbytes(), out = elem(s.out)->nbytes();
  const bool col_a = s.layout_a == "col", col_b = s.layout_b == "col";
  std::vector<Tensor> tensors = {
      {"A", col_a ? std::vector{s.k, s.m} : std::vector{s.m, s.k}, ab, {{"m", s.m}, {"k", s.k}}},
      {"B", col_b ? std::vector{s.n, s.k} : std::vector{s.k, s.n}, ab, {{"n", s.n}, {"k", s.k}}},
      {"C", {s.m, s.n}, out, {{"m", s.m}, {"n", s.n}}},
  };
  if (s.bias) tensors.push_back({"the bias", {s.n}, 4, {{"n", s.n}}});
  if (s.residual != "none") tensors.push_back({"the residual", {s.m, s.n}, out, {{"m", s.m}, {"n", s.n}}});
  for (const Tensor& t : tensors) {
    auto nbytes = static_cast<std::uint64_t>(t.elem);
    for (std::int64_t size : t.shape) nbytes *= static_cast<std::uint64_t>(size);
    if (nbytes <= static_cast<std::uint64_t>(kMaxInt)) continue;
    std::string_view field = t.sizes[0].first;
    std::int64_t limit = 0;
    for (const auto& [name, size] : t.sizes) {
      limit =
          static_cast<std::int64_t>(static_cast<std::uint64_t>(kMaxInt) / (nbytes / static_cast<std::uint64_t>(size)));
      if (limit >= 1) {
        field = name;
        break;
      }
    }
    std::string fix = "use " + std::string(field) + " at most " + std::to_string(limit);
    if (limit < 1) {
      fix = "use smaller";
      for (std::size_t i = 0; i < t.sizes.size(); ++i) fix += (i ? " and " : " ") + std::string(t.sizes[i].first);
    }
    const json::Value shape = json::Array(t.shape.begin(), t.shape.end());
    const std::string name = "GemmSpec." + std::string(field);
    throw family::SpecError(std::string(kSpecError), name, shape, kMaxInt,
                            name + ": expected every tensor at most " + std::to_string(kMaxInt) +
                                " bytes (the kernel's offsets are 32-bit), got " + t.what + " " +
                                json::canonical(shape) + " of " + std::to_string(nbytes) + " bytes; " + fix);
  }
}

}  // namespace

const ir::Type* elem(std::string_view name) {
  constexpr std::pair<std::string_view, std::string_view> kElem[] = {
      {"f16", "f16"}, {"bf16", "bf16"}, {"fp8", "f8e4m3"}, {"f32", "f32"}};
  for (const auto& [token, type] : kElem) {
    if (token == name) return ir::scalar(type);
  }
  throw std::logic_error("gemm ELEM has no type " + std::string(name));  // the spec allows only these
}

GemmSpec GemmSpec::from_json(const json::Value& obj) {
  const family::SpecFields f(fail, kFields, kRequired, obj);
  // Tile.of, then __post_init__, in its order.
  GemmSpec s;
  try {
    s.tile = tile::Tile::of(f.object(), "GemmSpec.tile", kSpecError);
  } catch (const errors::FieldError& e) {
    throw family::SpecError(e.python_class(), e.field(), e.value(), e.allowed(), e.what());
  }
  constexpr std::string_view kWhy = "the kernel takes m, n and k as i32";
  s.m = f.positive_int("m", nullptr, kWhy);
  s.n = f.positive_int("n", nullptr, kWhy);
  s.k = f.positive_int("k", nullptr, kWhy);
  s.dtype = f.choice("dtype", kDtypes);
  s.out = f.choice("out", kOuts);
  s.layout_a = f.choice("layout_a", kLayouts, "row");
  s.layout_b = f.choice("layout_b", kLayouts, "row");
  // tile.gemm.check_epilogue_fields.
  s.bias = f.flag("bias", false);
  s.activation = f.choice("activation", kActivations, "none");
  s.residual = f.choice("residual", kResidualField, "none");
  const json::Value scale = f.get("scale", "1");
  if (!scale.is_str() || !tile::scale_value(scale.as_str())) {
    fail("scale", scale, "a positive decimal string such as '0.5' (finite and above 0 as f32)");
  }
  s.scale = scale.as_str();
  const std::vector<std::string> shapes = tile::shapes(s.dtype);
  if (std::find(shapes.begin(), shapes.end(), s.tile.mma) == shapes.end()) {
    fail("tile.mma", s.tile.mma, "a matrix-core shape of " + s.dtype + " inputs: one of " + family::joined(shapes),
         family::listed(shapes));
  }
  check_tensors(s);
  return s;
}

json::Value GemmSpec::to_json() const {
  json::Object obj = tile.to_json();
  obj.insert({
      {"m", m},
      {"n", n},
      {"k", k},
      {"dtype", dtype},
      {"out", out},
      {"layout_a", layout_a},
      {"layout_b", layout_b},
      {"bias", bias},
      {"activation", activation},
      {"residual", residual},
      {"scale", scale},
  });
  return obj;
}

json::Value normalised(const json::Value& spec) { return GemmSpec::from_json(spec).to_json(); }

}  // namespace rocke::gemm
