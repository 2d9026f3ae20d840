#include "library/attention/cpp/spec.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <stdexcept>
#include <vector>

#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
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
constexpr std::int64_t kMaxInt = INT32_MAX;

template <class Names>
std::string joined(const Names& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

template <class Names>
json::Array listed(const Names& names) {
  json::Array out;
  for (const auto& name : names) out.emplace_back(std::string(name));
  return out;
}

// Python's SpecError for AttentionSpec.`field` (AttentionSpec for an empty one).
[[noreturn]] void fail(std::string_view field, const json::Value& value, std::string_view allowed,
                       json::Value choices = nullptr, std::string_view fix = "") {
  const std::string name = field.empty() ? "AttentionSpec" : "AttentionSpec." + std::string(field);
  throw family::SpecError(std::string(kSpecError), name, value, std::move(choices),
                          errors::worded(name, allowed, value, fix));
}

template <std::size_t N>
std::string choice(std::string_view field, const json::Value& v, const std::array<std::string_view, N>& allowed) {
  if (!v.is_str() || std::find(allowed.begin(), allowed.end(), v.as_str()) == allowed.end()) {
    fail(field, v, "one of " + joined(allowed), listed(allowed));
  }
  return v.as_str();
}

// spec._scale_ok: a positive finite decimal, and so after rounding to f32.
bool scale_ok(const std::string& text) {
  static const std::regex decimal("[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?");
  if (!std::regex_match(text, decimal)) return false;
  const double value = std::strtod(text.c_str(), nullptr);
  if (!(value < 3.4e38)) return false;
  const auto rounded = static_cast<float>(value);
  return rounded > 0 && std::isfinite(rounded);
}

// The decimal digits of a non-negative 128-bit count (a tensor's bytes may pass 64 bits).
std::string digits(unsigned __int128 x) {
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
    x /= 10;
  } while (x != 0);
  return out;
}

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
    const std::string fix = limit != 0 ? "use " + std::string(seqs[i].first) + " at most " + digits(limit)
                                       : std::string("use a smaller batch");
    const std::string name = "AttentionSpec." + std::string(seqs[i].first);
    throw family::SpecError(std::string(kSpecError), name, seqs[i].second, kMaxInt,
                            name + ": expected every tensor at most " + std::to_string(kMaxInt) +
                                " bytes (the kernel's offsets are 32-bit), got " + names[i] + " of " + digits(nbytes) +
                                " bytes; " + fix);
  }
}

// AttentionSpec._check_tile.
void check_tile(const AttentionSpec& s) {
  const std::vector<std::string> shapes = tile::shapes(s.dtype);
  if (std::find(shapes.begin(), shapes.end(), s.mma) == shapes.end()) {
    fail("mma", s.mma, "a matrix-core shape of " + s.dtype + " inputs: one of " + joined(shapes), listed(shapes));
  }
  const int m = std::stoi(s.mma), n = std::stoi(s.mma.substr(s.mma.find('x') + 1));
  const int k = std::stoi(s.mma.substr(s.mma.rfind('x') + 1));
  if (m != 16 || n != 16) {
    fail("mma", s.mma, "a 16x16xK shape (a score tile is one query's keys per lane group)", listed(shapes));
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
  if (!obj.is_object()) fail("", obj, "a JSON object with the fields " + joined(kFields), listed(kFields));
  const json::Object& fields = obj.as_object();
  // Python walks the keys in the object's order; json::Object is sorted, as
  // the canonical case lists are, so the first unknown key is the same there.
  for (const auto& [key, value] : fields) {
    if (std::find(kFields.begin(), kFields.end(), key) == kFields.end()) {
      fail(key, key, "one of the fields " + joined(kFields), listed(kFields), "drop it or fix its name");
    }
  }
  for (std::size_t i = 0; i < kRequired; ++i) {
    if (!fields.contains(kFields[i])) fail(kFields[i], nullptr, "a value (the field is required)", nullptr, "give it");
  }
  auto field = [&](std::string_view name, const json::Value& fallback) {
    auto it = fields.find(name);
    return it == fields.end() ? fallback : it->second;
  };
  AttentionSpec s;
  const std::pair<const char*, std::int64_t*> ints[] = {
      {"batch", &s.batch},     {"heads", &s.heads},     {"kv_heads", &s.kv_heads},
      {"seq_q", &s.seq_q},     {"seq_k", &s.seq_k},     {"head_dim", &s.head_dim},
      {"block_m", &s.block_m}, {"block_n", &s.block_n}, {"waves", &s.waves},
  };
  for (const auto& [name, slot] : ints) {
    const json::Value v = field(name, nullptr);
    if (!v.above_int64() && (!v.is_int() || v.as_int() < 1)) fail(name, v, "a positive int");
    if (v.above_int64() || v.as_int() > kMaxInt) {
      fail(name, v, "a positive int at most " + std::to_string(kMaxInt) + " (an i32 in the kernel)", kMaxInt);
    }
    *slot = v.as_int();
  }
  s.dtype = choice("dtype", field("dtype", nullptr), kDtypes);
  s.layout = choice("layout", field("layout", "bshd"), kLayouts);
  s.mask = choice("mask", field("mask", "none"), kMasks);
  const std::pair<const char*, bool*> bools[] = {{"causal", &s.causal}, {"lse", &s.lse}};
  for (const auto& [name, slot] : bools) {
    const json::Value v = field(name, false);
    if (!v.is_bool()) fail(name, v, "true or false");
    *slot = v.as_bool();
  }
  if (std::find(kHeadDims.begin(), kHeadDims.end(), s.head_dim) == kHeadDims.end()) {
    fail("head_dim", s.head_dim, "one of 64, 128 (the head dims the kernel tiles)", json::Array{64, 128});
  }
  if (s.heads % s.kv_heads != 0) fail("kv_heads", s.kv_heads, "a divisor of heads (" + std::to_string(s.heads) + ")");
  const json::Value scale = field("scale", std::string(kDefaultScale));
  if (!scale.is_str() || (scale.as_str() != kDefaultScale && !scale_ok(scale.as_str()))) {
    fail("scale", scale, "'1/sqrt(head_dim)' or a positive decimal such as '0.125'");
  }
  s.scale = scale.as_str();
  const json::Value mma = field("mma", nullptr);
  if (!mma.is_str()) {
    const std::vector<std::string> shapes = tile::shapes(s.dtype);
    fail("mma", mma, "a matrix-core shape of " + s.dtype + " inputs: one of " + joined(shapes), listed(shapes));
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
