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

json::Value list(const Shape& shape) { return json::Array(shape.begin(), shape.end()); }

// Python's SpecError for PoolSpec.`field` (PoolSpec for an empty one).
[[noreturn]] void fail(std::string_view field, const json::Value& value, std::string_view allowed,
                       json::Value choices = nullptr, std::string_view fix = "") {
  const std::string name = field.empty() ? "PoolSpec" : "PoolSpec." + std::string(field);
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
  auto field = [&](std::string_view name) {
    auto it = fields.find(name);
    return it == fields.end() ? json::Value(nullptr) : it->second;
  };
  PoolSpec s;
  const std::pair<const char*, std::int64_t*> ints[] = {{"n", &s.n}, {"c", &s.c}};
  for (const auto& [name, slot] : ints) {
    const json::Value v = field(name);
    if (!int_ok(v, 1))
      fail(name, v, "a positive int at most " + std::to_string(kMaxInt) + " (an i32 in the kernel)", kMaxInt);
    *slot = v.as_int();
  }
  const json::Value spatial = field("spatial");
  if (!spatial.is_array() || (spatial.as_array().size() != 2 && spatial.as_array().size() != 3)) {
    fail("spatial", spatial, "[h, w] or [d, h, w]");
  }
  const std::size_t dims = spatial.as_array().size();
  const json::Value window = field("window");
  json::Value stride = field("stride"), pad = field("pad"), pad_end = field("pad_end");
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
  s.kind = choice("kind", field("kind"), kKinds);
  const json::Value layout = field("layout"), dtype = field("dtype");
  s.layout = choice("layout", layout.is_null() && !fields.contains("layout") ? json::Value("NHWC") : layout, kLayouts);
  s.dtype = choice("dtype", dtype.is_null() && !fields.contains("dtype") ? json::Value("f16") : dtype, kDtypes);
  const json::Value count_pad = fields.contains("count_pad") ? field("count_pad") : json::Value(false);
  if (!count_pad.is_bool()) fail("count_pad", count_pad, "true or false");
  s.count_pad = count_pad.as_bool();
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
