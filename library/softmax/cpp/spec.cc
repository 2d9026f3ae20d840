#include "library/softmax/cpp/spec.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/family/cpp/fields.h"
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
constexpr std::int64_t kMaxInt = family::kMaxInt;
// spec.py's MAX_WAVES: a workgroup holds at most 1024 lanes.
constexpr std::int64_t kMaxWaves = 16;

constexpr family::SpecRefusal fail(kSpecError, "SoftmaxSpec");

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
  const family::SpecFields f(fail, kFields, kRequired, obj);
  SoftmaxSpec s;
  const std::pair<const char*, std::int64_t*> ints[] = {
      {"rows", &s.rows},
      {"dim", &s.dim},
      {"waves", &s.waves},
      {"lane_elements", &s.lane_elements},
  };
  for (const auto& [name, slot] : ints) *slot = f.positive_int(name, *slot);
  s.dtype = f.choice("dtype", kDtypes, s.dtype);
  s.mask = f.flag("mask", false);
  s.scale = f.decimal("scale", s.scale, "a positive decimal such as '0.125'");
  if (s.waves > kMaxWaves) {
    fail("waves", s.waves, "at most " + std::to_string(kMaxWaves) + " (a workgroup holds at most 1024 lanes)",
         kMaxWaves);
  }
  const unsigned __int128 nbytes = 4 * static_cast<unsigned __int128>(s.rows) * static_cast<unsigned __int128>(s.dim);
  if (nbytes > static_cast<unsigned __int128>(kMaxInt)) {
    const std::int64_t limit = std::max<std::int64_t>(kMaxInt / (4 * s.dim), 1);
    throw family::SpecError(std::string(kSpecError), "SoftmaxSpec.rows", s.rows, kMaxInt,
                            "SoftmaxSpec.rows: expected every tensor at most " + std::to_string(kMaxInt) +
                                " bytes (the kernel's offsets are 32-bit), got " + family::digits(nbytes) +
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
