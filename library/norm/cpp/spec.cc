#include "library/norm/cpp/spec.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <stdexcept>
#include <string>
#include <utility>

#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/types.h"

namespace rocke::norm {
namespace {

constexpr std::string_view kSpecError = "norm.spec.SpecError";

// spec.py's KINDS and DTYPES, in Python's order (messages list them).
constexpr std::array<std::string_view, 2> kKinds = {"layernorm", "rmsnorm"};
constexpr std::array<std::string_view, 3> kDtypes = {"f16", "bf16", "f32"};
// spec.py's VECTOR_BYTES, THREAD_STEP, MAX_THREADS, PER_LANE_STEP, MAX_PER_LANE and MAX_INT.
constexpr int kVectorBytes = 16;
constexpr std::int64_t kThreadStep = 64, kMaxThreads = 1024, kPerLaneStep = 8, kMaxPerLane = 64;
constexpr std::int64_t kMaxInt = INT32_MAX;

// The JSON fields in declaration order; the first 7 have no default.
constexpr std::array<std::string_view, 10> kFields = {
    "kind", "rows", "dim", "dtype", "eps", "threads", "per_lane", "affine", "residual", "residual_out",
};
constexpr std::size_t kRequired = 7;

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

// Python's SpecError for NormSpec.`field` (NormSpec for an empty one).
[[noreturn]] void fail(std::string_view field, const json::Value& value, std::string_view allowed,
                       json::Value choices = nullptr, std::string_view fix = "") {
  const std::string name = field.empty() ? "NormSpec" : "NormSpec." + std::string(field);
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

// spec._eps_ok: a decimal that is positive and finite as an f32.
bool eps_ok(const std::string& text) {
  static const std::regex decimal("[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?");
  if (!std::regex_match(text, decimal)) return false;
  const double value = std::strtod(text.c_str(), nullptr);
  return value < 3.4e38 && static_cast<float>(value) > 0;
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
  if (name == "f16" || name == "bf16" || name == "f32") return ir::scalar(name);
  throw std::logic_error("norm ELEM has no type " + std::string(name));  // the spec allows only these
}

double f32(double x) { return static_cast<double>(static_cast<float>(x)); }

double NormSpec::eps_value() const { return f32(std::strtod(eps.c_str(), nullptr)); }

int NormSpec::vec() const {
  int n = kVectorBytes / elem(dtype)->nbytes();
  while (dim % n != 0) n /= 2;
  return n;
}

NormSpec NormSpec::from_json(const json::Value& obj) {
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
  NormSpec s;
  const std::pair<const char*, std::int64_t*> ints[] = {
      {"rows", &s.rows}, {"dim", &s.dim}, {"threads", &s.threads}, {"per_lane", &s.per_lane}};
  for (const auto& [name, slot] : ints) {
    const json::Value v = field(name, nullptr);
    if (!v.above_int64() && (!v.is_int() || v.as_int() < 1)) fail(name, v, "a positive int");
    if (v.above_int64() || v.as_int() > kMaxInt) {
      fail(name, v, "a positive int at most " + std::to_string(kMaxInt) + " (an i32 in the kernel)", kMaxInt);
    }
    *slot = v.as_int();
  }
  s.kind = choice("kind", field("kind", nullptr), kKinds);
  s.dtype = choice("dtype", field("dtype", nullptr), kDtypes);
  const std::pair<const char*, bool*> bools[] = {
      {"affine", &s.affine}, {"residual", &s.residual}, {"residual_out", &s.residual_out}};
  for (const auto& [name, slot] : bools) {
    const json::Value v = field(name, std::string(name) == "affine");
    if (!v.is_bool()) fail(name, v, "true or false");
    *slot = v.as_bool();
  }
  const json::Value eps = field("eps", nullptr);
  if (!eps.is_str() || !eps_ok(eps.as_str())) {
    fail("eps", eps, "a positive decimal string such as '1e-5' (positive and finite as an f32)");
  }
  s.eps = eps.as_str();
  if (s.threads % kThreadStep != 0 || s.threads > kMaxThreads) {
    fail("threads", s.threads,
         "a multiple of " + std::to_string(kThreadStep) + " at most " + std::to_string(kMaxThreads), kMaxThreads);
  }
  if (s.per_lane % kPerLaneStep != 0 || s.per_lane > kMaxPerLane) {
    fail("per_lane", s.per_lane,
         "a multiple of " + std::to_string(kPerLaneStep) + " at most " + std::to_string(kMaxPerLane), kMaxPerLane);
  }
  if (s.residual_out && !s.residual) {
    fail("residual_out", true, "false without a residual (the sum it writes is x + residual)", nullptr,
         "set residual too");
  }
  const std::int64_t row_bytes = s.dim * elem(s.dtype)->nbytes();
  const unsigned __int128 nbytes = static_cast<unsigned __int128>(s.rows) * static_cast<unsigned __int128>(row_bytes);
  if (nbytes > static_cast<unsigned __int128>(kMaxInt)) {
    const std::int64_t limit = kMaxInt / row_bytes;
    fail("rows", s.rows,
         "a [rows, dim] tensor of at most " + std::to_string(kMaxInt) + " bytes (the kernel's offsets are 32-bit), " +
             "which is " + digits(nbytes) + " bytes",
         kMaxInt, limit != 0 ? "use rows at most " + std::to_string(limit) : std::string("use a smaller dim"));
  }
  return s;
}

json::Value NormSpec::to_json() const {
  return json::Object{
      {"kind", kind},         {"rows", rows},
      {"dim", dim},           {"dtype", dtype},
      {"eps", eps},           {"threads", threads},
      {"per_lane", per_lane}, {"affine", affine},
      {"residual", residual}, {"residual_out", residual_out},
  };
}

json::Value normalised(const json::Value& spec) { return NormSpec::from_json(spec).to_json(); }

}  // namespace rocke::norm
