#include "library/norm/cpp/spec.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/fields.h"
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
constexpr std::int64_t kMaxInt = family::kMaxInt;

// The JSON fields in declaration order; the first 7 have no default.
constexpr std::array<std::string_view, 10> kFields = {
    "kind", "rows", "dim", "dtype", "eps", "threads", "per_lane", "affine", "residual", "residual_out",
};
constexpr std::size_t kRequired = 7;

constexpr family::SpecRefusal fail(kSpecError, "NormSpec");

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
  const family::SpecFields f(fail, kFields, kRequired, obj);
  NormSpec s;
  s.rows = f.positive_int("rows");
  s.dim = f.positive_int("dim");
  s.threads = f.positive_int("threads");
  s.per_lane = f.positive_int("per_lane");
  s.kind = f.choice("kind", kKinds);
  s.dtype = f.choice("dtype", kDtypes);
  s.affine = f.flag("affine", true);
  s.residual = f.flag("residual", false);
  s.residual_out = f.flag("residual_out", false);
  s.eps = f.decimal("eps", nullptr, "a positive decimal string such as '1e-5' (positive and finite as an f32)");
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
             "which is " + family::digits(nbytes) + " bytes",
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
