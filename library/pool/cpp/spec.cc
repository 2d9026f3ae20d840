#include "library/pool/cpp/spec.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/family/cpp/fields.h"
#include "platform/ir/cpp/types.h"

namespace rocke::pool {
namespace {

constexpr std::string_view kSpecError = "pool.spec.SpecError";

// spec.py's KINDS, LAYOUTS and DTYPES, in Python's order (messages list them).
constexpr std::array<std::string_view, 2> kKinds = {"max", "avg"};
constexpr std::array<std::string_view, 2> kLayouts = {"NHWC", "NCHW"};
constexpr std::array<std::string_view, 3> kDtypes = {"f16", "bf16", "f32"};

// The JSON fields in declaration order; the first 5 have no default.
constexpr std::array<std::string_view, 11> kFields = {
    "n", "c", "spatial", "kind", "window", "stride", "pad", "pad_end", "count_pad", "layout", "dtype",
};
constexpr std::size_t kRequired = 5;
// spec.py's MAX_INT: sizes are i32 in the kernel, and so is every offset.
constexpr std::int64_t kMaxInt = family::kMaxInt;

json::Value list(const Shape& shape) { return json::Array(shape.begin(), shape.end()); }

constexpr family::SpecRefusal fail(kSpecError, "PoolSpec");

// spec._int_ok.
bool int_ok(const json::Value& v, std::int64_t minimum) {
  return !v.above_int64() && v.is_int() && v.as_int() >= minimum && v.as_int() <= kMaxInt;
}

// Python's floor division of a numerator that may be negative by a positive divisor.
std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The product of positive factors, or kMaxInt + 1 once past kMaxInt.
std::int64_t capped_product(const Shape& factors) {
  std::int64_t out = 1;
  for (std::int64_t f : factors) {
    out *= f;  // both at most 2**31: no overflow
    if (out > kMaxInt) return kMaxInt + 1;
  }
  return out;
}

// PoolSpec._check_tensors: the input, then the output.
void check_tensors(const PoolSpec& s) {
  const std::int64_t elem_bytes = elem(s.dtype)->nbytes();
  const std::pair<const char*, Shape> tensors[] = {{"input", s.spatial}, {"output", s.output()}};
  for (const auto& [what, spatial] : tensors) {
    Shape per_image = spatial;
    per_image.push_back(s.c);
    per_image.push_back(elem_bytes);
    const std::int64_t image = capped_product(per_image);
    Shape all = {image, s.n};
    if (capped_product(all) <= kMaxInt) continue;
    const std::int64_t limit = image > kMaxInt ? 0 : kMaxInt / image;
    const std::string fix = limit != 0 ? "use n at most " + std::to_string(limit) : "split the channels into launches";
    throw family::SpecError(std::string(kSpecError), "PoolSpec.n", s.n, kMaxInt,
                            "PoolSpec.n: expected every tensor at most " + std::to_string(kMaxInt) +
                                " bytes (2**31 - 1: the kernel's offsets are 32-bit), got the " + what + " of more; " +
                                fix);
  }
}

}  // namespace

const ir::Type* elem(std::string_view name) {
  if (name == "f16" || name == "bf16" || name == "f32") return ir::scalar(name);
  throw std::logic_error("pool ELEM has no type " + std::string(name));  // the spec allows only these
}

Shape PoolSpec::output() const {
  Shape out;
  for (std::size_t i = 0; i < spatial.size(); ++i) {
    out.push_back(floor_div(spatial[i] + pad[i] + pad_end[i] - window[i], stride[i]) + 1);
  }
  return out;
}

PoolSpec PoolSpec::from_json(const json::Value& obj) {
  const family::SpecFields f(fail, kFields, kRequired, obj);
  PoolSpec s;
  const std::pair<const char*, std::int64_t*> ints[] = {{"n", &s.n}, {"c", &s.c}};
  for (const auto& [name, slot] : ints) {
    const json::Value v = f.get(name);
    if (!int_ok(v, 1))
      fail(name, v, "a positive int at most " + std::to_string(kMaxInt) + " (an i32 in the kernel)", kMaxInt);
    *slot = v.as_int();
  }
  const json::Value spatial = f.get("spatial");
  if (!spatial.is_array() || (spatial.as_array().size() != 2 && spatial.as_array().size() != 3)) {
    fail("spatial", spatial, "[h, w] or [d, h, w]");
  }
  const std::size_t dims = spatial.as_array().size();
  const json::Value window = f.get("window");
  json::Value stride = f.get("stride"), pad = f.get("pad"), pad_end = f.get("pad_end");
  if (stride.is_null()) stride = window;
  if (pad.is_null()) pad = json::Array(dims, json::Value(0));
  if (pad_end.is_null()) pad_end = pad;
  const std::tuple<const char*, const json::Value*, Shape*, std::int64_t> tuples[] = {
      {"spatial", &spatial, &s.spatial, 1}, {"window", &window, &s.window, 1},
      {"stride", &stride, &s.stride, 1},    {"pad", &pad, &s.pad, 0},
      {"pad_end", &pad_end, &s.pad_end, 0},
  };
  for (const auto& [name, value, slot, minimum] : tuples) {
    const bool ok = value->is_array() && value->as_array().size() == dims &&
                    std::all_of(value->as_array().begin(), value->as_array().end(),
                                [&](const json::Value& v) { return int_ok(v, minimum); });
    if (!ok) {
      fail(name, *value,
           "a list of " + std::to_string(dims) + " ints from " + std::to_string(minimum) + " to " +
               std::to_string(kMaxInt) + " (one per spatial dimension)");
    }
    for (const json::Value& v : value->as_array()) slot->push_back(v.as_int());
  }
  s.kind = f.choice("kind", kKinds);
  s.layout = f.choice("layout", kLayouts, "NHWC");
  s.dtype = f.choice("dtype", kDtypes, "f16");
  s.count_pad = f.flag("count_pad", false);
  if (s.count_pad && s.kind != "avg") {
    fail("count_pad", true, "false for a max pool (padding counts only in an average)");
  }
  const std::pair<const char*, const Shape*> pads[] = {{"pad", &s.pad}, {"pad_end", &s.pad_end}};
  for (const auto& [name, values] : pads) {
    for (std::size_t i = 0; i < dims; ++i) {
      if ((*values)[i] >= s.window[i]) {
        fail(name, list(*values),
             "each below the window " + json::canonical(list(s.window)) +
                 " (a window of padding alone has no max or mean)");
      }
    }
  }
  const Shape out = s.output();
  for (std::size_t i = 0; i < dims; ++i) {
    if (out[i] < 1) {
      fail("window", list(s.window),
           "a window that fits the padded input in dimension " + std::to_string(i) + " (output size " +
               std::to_string(out[i]) + ")");
    }
  }
  check_tensors(s);
  return s;
}

json::Value PoolSpec::to_json() const {
  return json::Object{
      {"n", n},
      {"c", c},
      {"spatial", list(spatial)},
      {"kind", kind},
      {"window", list(window)},
      {"stride", list(stride)},
      {"pad", list(pad)},
      {"pad_end", list(pad_end)},
      {"count_pad", count_pad},
      {"layout", layout},
      {"dtype", dtype},
  };
}

json::Value normalised(const json::Value& spec) { return PoolSpec::from_json(spec).to_json(); }

}  // namespace rocke::pool
