#include "library/attention/cpp/spec.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/family/cpp/fields.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/tile.h"

namespace rocke::attention {
namespace {

constexpr std::string_view kSpecError = "attention.spec.SpecError";
constexpr std::string_view kDefaultScale = "1/sqrt(head_dim)";

// spec.py's DTYPES, LAYOUTS, MASKS and HEAD_DIMS, in Python's order (messages list them).
constexpr std::array<std::string_view, 2> kDtypes = {"f16", "bf16"};
constexpr std::array<std::string_view, 2> kLayouts = {"bshd", "bhsd"};
constexpr std::array<std::string_view, 2> kMasks = {"none", "padding"};
constexpr std::array<std::int64_t, 2> kHeadDims = {64, 128};

// The JSON fields in declaration order; the first 11 have no default.
constexpr std::array<std::string_view, 16> kFields = {
    "batch",   "heads",   "kv_heads", "seq_q",  "seq_k", "head_dim", "dtype",  "mma",
    "block_m", "block_n", "waves",    "causal", "mask",  "scale",    "layout", "lse",
};
constexpr std::size_t kRequired = 11;
// spec.py's MAX_INT: sizes are i32 in the kernel, and so is every offset.
constexpr std::int64_t kMaxInt = family::kMaxInt;

constexpr family::SpecRefusal fail(kSpecError, "AttentionSpec");

// AttentionSpec._check_tensors.
void check_tensors(const AttentionSpec& s) {
  const auto elem_bytes = static_cast<unsigned __int128>(elem(s.dtype)->nbytes());
  const std::pair<std::string_view, std::int64_t> seqs[] = {{"seq_q", s.seq_q}, {"seq_k", s.seq_k}};
  const std::int64_t heads[] = {s.heads, s.kv_heads};
  const char* names[] = {"Q", "K"};
  for (int i = 0; i < 2; ++i) {
    const unsigned __int128 per_row = elem_bytes * static_cast<unsigned __int128>(s.batch) *
                                      static_cast<unsigned __int128>(heads[i]) *
                                      static_cast<unsigned __int128>(s.head_dim);
    const unsigned __int128 nbytes = per_row * static_cast<unsigned __int128>(seqs[i].second);
    if (nbytes <= static_cast<unsigned __int128>(kMaxInt)) continue;
    const unsigned __int128 limit = static_cast<unsigned __int128>(kMaxInt) / per_row;
    const std::string fix = limit != 0 ? "use " + std::string(seqs[i].first) + " at most " + family::digits(limit)
                                       : std::string("use a smaller batch");
    const std::string name = "AttentionSpec." + std::string(seqs[i].first);
    throw family::SpecError(std::string(kSpecError), name, seqs[i].second, kMaxInt,
                            name + ": expected every tensor at most " + std::to_string(kMaxInt) +
                                " bytes (the kernel's offsets are 32-bit), got " + names[i] + " of " +
                                family::digits(nbytes) + " bytes; " + fix);
  }
}

// AttentionSpec._check_tile.
void check_tile(const AttentionSpec& s) {
  const std::vector<std::string> shapes = tile::shapes(s.dtype);
  if (std::find(shapes.begin(), shapes.end(), s.mma) == shapes.end()) {
    fail("mma", s.mma, "a matrix-core shape of " + s.dtype + " inputs: one of " + family::joined(shapes),
         family::listed(shapes));
  }
  const int m = std::stoi(s.mma), n = std::stoi(s.mma.substr(s.mma.find('x') + 1));
  const int k = std::stoi(s.mma.substr(s.mma.rfind('x') + 1));
  if (m != 16 || n != 16) {
    fail("mma", s.mma, "a 16x16xK shape (a score tile is one query's keys per lane group)", family::listed(shapes));
  }
  const std::int64_t part_m = s.waves * m;
  if (s.block_m % part_m != 0) {
    fail("block_m", s.block_m,
         "a multiple of waves (" + std::to_string(s.waves) + ") x the mma's M (" + std::to_string(m) +
             ") = " + std::to_string(part_m),
         part_m);
  }
  const std::int64_t part_n = std::max(n, k);
  if (s.block_n % part_n != 0) {
    fail("block_n", s.block_n,
         "a multiple of the mma's N and K (" + std::to_string(part_n) + ") = " + std::to_string(part_n), part_n);
  }
}

}  // namespace

const ir::Type* elem(std::string_view name) {
  if (name == "f16" || name == "bf16") return ir::scalar(name);
  throw std::logic_error("attention ELEM has no type " + std::string(name));  // the spec allows only these
}

double AttentionSpec::scale_value() const {
  const double value =
      scale == kDefaultScale ? 1.0 / std::sqrt(static_cast<double>(head_dim)) : std::strtod(scale.c_str(), nullptr);
  return static_cast<double>(static_cast<float>(value));
}

AttentionSpec AttentionSpec::from_json(const json::Value& obj) {
  const family::SpecFields f(fail, kFields, kRequired, obj);
  AttentionSpec s;
  const std::pair<const char*, std::int64_t*> ints[] = {
      {"batch", &s.batch},     {"heads", &s.heads},     {"kv_heads", &s.kv_heads},
      {"seq_q", &s.seq_q},     {"seq_k", &s.seq_k},     {"head_dim", &s.head_dim},
      {"block_m", &s.block_m}, {"block_n", &s.block_n}, {"waves", &s.waves},
  };
  for (const auto& [name, slot] : ints) *slot = f.positive_int(name);
  s.dtype = f.choice("dtype", kDtypes);
  s.layout = f.choice("layout", kLayouts, "bshd");
  s.mask = f.choice("mask", kMasks, "none");
  s.causal = f.flag("causal", false);
  s.lse = f.flag("lse", false);
  if (std::find(kHeadDims.begin(), kHeadDims.end(), s.head_dim) == kHeadDims.end()) {
    fail("head_dim", s.head_dim, "one of 64, 128 (the head dims the kernel tiles)", json::Array{64, 128});
  }
  if (s.heads % s.kv_heads != 0) fail("kv_heads", s.kv_heads, "a divisor of heads (" + std::to_string(s.heads) + ")");
  const json::Value scale = f.get("scale", std::string(kDefaultScale));
  if (!scale.is_str() || (scale.as_str() != kDefaultScale && !family::positive_decimal(scale.as_str()))) {
    fail("scale", scale, "'1/sqrt(head_dim)' or a positive decimal such as '0.125'");
  }
  s.scale = scale.as_str();
  const json::Value mma = f.get("mma");
  if (!mma.is_str()) {
    const std::vector<std::string> shapes = tile::shapes(s.dtype);
    fail("mma", mma, "a matrix-core shape of " + s.dtype + " inputs: one of " + family::joined(shapes),
         family::listed(shapes));
  }
  s.mma = mma.as_str();
  check_tile(s);
  check_tensors(s);
  return s;
}

json::Value AttentionSpec::to_json() const {
  return json::Object{
      {"batch", batch},     {"heads", heads},       {"kv_heads", kv_heads}, {"seq_q", seq_q},
      {"seq_k", seq_k},     {"head_dim", head_dim}, {"dtype", dtype},       {"mma", mma},
      {"block_m", block_m}, {"block_n", block_n},   {"waves", waves},       {"causal", causal},
      {"mask", mask},       {"scale", scale},       {"layout", layout},     {"lse", lse},
  };
}

json::Value normalised(const json::Value& spec) { return AttentionSpec::from_json(spec).to_json(); }

}  // namespace rocke::attention
