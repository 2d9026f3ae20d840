#include "library/softmax/cpp/spec.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <regex>
#include <stdexcept>
#include <utility>

#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/types.h"

namespace rocke::softmax {
namespace {

constexpr std::string_view kSpecError = "softmax.spec.SpecError";

// spec.py's DTYPES, in Python's order (messages list them).
constexpr std::array<std::string_view, 3> kDtypes = {"f16", "bf16", "f32"};

// The JSON fields in declaration order; the first 2 have no default.
constexpr std::array<std::string_view, 7> kFields = {
    "rows", "dim", "dtype", "mask", "scale", "waves", "lane_elements",
};
constexpr std::size_t kRequired = 2;
// spec.py's MAX_INT: sizes are i32 in the kernel, and so is every offset.
constexpr std::int64_t kMaxInt = INT32_MAX;
// spec.py's MAX_WAVES: a workgroup holds at most 1024 lanes.
constexpr std::int64_t kMaxWaves = 16;

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

// Python's SpecError for SoftmaxSpec.`field` (SoftmaxSpec for an empty one).
[[noreturn]] void fail(std::string_view field, const json::Value& value, std::string_view allowed,
                       json::Value choices = nullptr, std::string_view fix = "") {
  const std::string name = field.empty() ? "SoftmaxSpec" : "SoftmaxSpec." + std::string(field);
  throw family::SpecError(std::string(kSpecError), name, value, std::move(choices),
                          errors::worded(name, allowed, value, fix));
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

}  // namespace

const ir::Type* elem(std::string_view name) {
  if (std::find(kDtypes.begin(), kDtypes.end(), name) != kDtypes.end()) return ir::scalar(name);
  throw std::logic_error("softmax ELEM has no type " + std::string(name));  // the spec allows only these
}

double SoftmaxSpec::scale_value() const {
  return static_cast<double>(static_cast<float>(std::strtod(scale.c_str(), nullptr)));
}

int SoftmaxSpec::vector() const { return static_cast<int>(std::gcd(dim, std::int64_t{16 / elem(dtype)->nbytes()})); }

SoftmaxSpec SoftmaxSpec::from_json(const json::Value& obj) {
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
  SoftmaxSpec s;
  const std::pair<const char*, std::int64_t*> ints[] = {
      {"rows", &s.rows},
      {"dim", &s.dim},
      {"waves", &s.waves},
      {"lane_elements", &s.lane_elements},
  };
  for (const auto& [name, slot] : ints) {
    const json::Value v = field(name, *slot);
    if (!v.above_int64() && (!v.is_int() || v.as_int() < 1)) fail(name, v, "a positive int");
    if (v.above_int64() || v.as_int() > kMaxInt) {
      fail(name, v, "a positive int at most " + std::to_string(kMaxInt) + " (an i32 in the kernel)", kMaxInt);
    }
    *slot = v.as_int();
  }
  const json::Value dtype = field("dtype", s.dtype);
  if (!dtype.is_str() || std::find(kDtypes.begin(), kDtypes.end(), dtype.as_str()) == kDtypes.end()) {
    fail("dtype", dtype, "one of " + joined(kDtypes), listed(kDtypes));
  }
  s.dtype = dtype.as_str();
  const json::Value mask = field("mask", false);
  if (!mask.is_bool()) fail("mask", mask, "true or false");
  s.mask = mask.as_bool();
  const json::Value scale = field("scale", s.scale);
  if (!scale.is_str() || !scale_ok(scale.as_str())) fail("scale", scale, "a positive decimal such as '0.125'");
  s.scale = scale.as_str();
  if (s.waves > kMaxWaves) {
    fail("waves", s.waves, "at most " + std::to_string(kMaxWaves) + " (a workgroup holds at most 1024 lanes)",
         kMaxWaves);
  }
  const unsigned __int128 nbytes = 4 * static_cast<unsigned __int128>(s.rows) * static_cast<unsigned __int128>(s.dim);
  if (nbytes > static_cast<unsigned __int128>(kMaxInt)) {
    const std::int64_t limit = std::max<std::int64_t>(kMaxInt / (4 * s.dim), 1);
    throw family::SpecError(std::string(kSpecError), "SoftmaxSpec.rows", s.rows, kMaxInt,
                            "SoftmaxSpec.rows: expected every tensor at most " + std::to_string(kMaxInt) +
                                " bytes (the kernel's offsets are 32-bit), got " + digits(nbytes) +
                                " bytes of f32 rows; use rows at most " + std::to_string(limit));
  }
  return s;
}

json::Value SoftmaxSpec::to_json() const {
  return json::Object{
      {"rows", rows},
      {"dim", dim},
      {"dtype", dtype},
      {"mask", mask},
      {"scale", scale},
      {"waves", waves},
      {"lane_elements", lane_elements},
  };
}

json::Value normalised(const json::Value& spec) { return SoftmaxSpec::from_json(spec).to_json(); }

}  // namespace rocke::softmax
