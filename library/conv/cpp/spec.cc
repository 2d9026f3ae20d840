#include "library/conv/cpp/spec.h"

#include <array>
#include <string_view>

#include "platform/cpp/family/family.h"
#include "platform/cpp/py/repr.h"

namespace rocke::conv {
namespace {

using family::SpecError;

constexpr std::array<std::string_view, 2> kLayouts = {"NHWC", "NCHW"};
constexpr std::array<std::string_view, 3> kDtypes = {"f32", "f16", "bf16"};

// The dataclass fields in declaration order, which Python's messages list.
constexpr std::array<std::string_view, 12> kFields = {
    "n", "c", "k", "spatial", "filter", "stride", "pad", "dilation", "groups", "layout", "dtype", "bias_relu",
};
// Fields without a default: from_json names the first one missing.
constexpr std::array<std::string_view, 5> kRequired = {"n", "c", "k", "spatial", "filter"};

// One field as __post_init__ sees it after normalising: a JSON list in a
// tuple field becomes a tuple (printed as one); anything else stays the value
// JSON gave.
struct Field {
  json::Value value;
  bool is_tuple = false;

  std::string repr() const {
    if (!is_tuple) return json::repr(value);
    const json::Array& items = value.as_array();
    std::string out = "(";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + json::repr(items[i]);
    return out + (items.size() == 1 ? ",)" : ")");
  }
  std::size_t size() const { return value.as_array().size(); }
};

[[noreturn]] void fail(std::string_view field, const Field& value, std::string_view allowed) {
  throw SpecError("ConvSpec." + std::string(field) + ": expected " + std::string(allowed) + ", got " + value.repr());
}

template <std::size_t N>
std::string joined(const std::array<std::string_view, N>& names) {
  std::string out;
  for (std::string_view name : names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

template <std::size_t N>
bool one_of(const json::Value& v, const std::array<std::string_view, N>& names) {
  if (!v.is_str()) return false;
  for (std::string_view name : names) {
    if (v.as_str() == name) return true;
  }
  return false;
}

std::int64_t positive_int(std::string_view field, const Field& f) {
  if (!f.value.is_int() || f.value.as_int() < 1) fail(field, f, "a positive int");
  return f.value.as_int();
}

Shape int_tuple(std::string_view field, const Field& f, std::size_t dims, std::int64_t minimum) {
  if (!f.is_tuple || f.size() != dims) {
    fail(field, f, "a tuple of " + std::to_string(dims) + " ints (one per spatial dimension)");
  }
  Shape out;
  for (const json::Value& v : f.value.as_array()) {
    if (!v.is_int() || v.as_int() < minimum) fail(field, f, "ints >= " + std::to_string(minimum));
    out.push_back(v.as_int());
  }
  return out;
}

// str() of a Python int that may not fit in 64 bits.
std::string decimal(__int128 v) {
  if (v < 0) return "-" + decimal(-v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v > 0);
  return digits;
}

// Python's floor division (C++ truncates toward zero), for a positive d.
__int128 floor_div(__int128 a, __int128 d) { return a >= 0 ? a / d : -((-a + d - 1) / d); }

// Output size per dimension in 128 bits: Python's ints do not overflow, and
// neither does this for any spec of int64 fields.
std::vector<__int128> output_sizes(const ConvSpec& s) {
  std::vector<__int128> out;
  for (std::size_t i = 0; i < s.spatial.size(); ++i) {
    __int128 x = s.spatial[i], p = s.pad[i], d = s.dilation[i], f = s.filter[i];
    out.push_back(floor_div(x + 2 * p - d * (f - 1) - 1, s.stride[i]) + 1);
  }
  return out;
}

// A size, or a product of sizes, of the C++ spec: one that needs more than 64
// bits cannot be built (Python's builder refuses any above 2**31 - 1 anyway,
// as a constant out of i32's range).
std::int64_t narrow(__int128 v) {
  if (v > INT64_MAX || v < INT64_MIN) {
    throw SpecError("ConvSpec: expected sizes and products of sizes below 2**63 (the C++ engine's int64 limit), "
                    "got a larger one; use smaller sizes");
  }
  return static_cast<std::int64_t>(v);
}

json::Value list(const Shape& shape) {
  json::Array out;
  for (std::int64_t v : shape) out.emplace_back(v);
  return out;
}

Shape concat(std::initializer_list<std::int64_t> head, const Shape& mid, std::initializer_list<std::int64_t> tail) {
  Shape out(head);
  out.insert(out.end(), mid.begin(), mid.end());
  out.insert(out.end(), tail);
  return out;
}

}  // namespace

ConvSpec ConvSpec::from_json(const json::Value& obj) {
  if (!obj.is_object()) {
    throw SpecError("ConvSpec: expected a JSON object with the fields " + joined(kFields) + ", got " +
                    json::repr(obj));
  }
  const json::Object& fields = obj.as_object();
  // Python walks the keys in the object's order; json::Object is sorted, as
  // the canonical case lists are, so the first unknown key is the same there.
  for (const auto& [key, value] : fields) {
    if (!one_of(json::Value(key), kFields)) {
      throw SpecError("ConvSpec." + key + ": expected one of the fields " + joined(kFields) +
                      ", got the unknown field " + py::repr(key));
    }
  }
  for (std::string_view name : kRequired) {
    if (!fields.contains(name)) {
      throw SpecError("ConvSpec." + std::string(name) + ": expected a value (the field is required), got none");
    }
  }
  // __post_init__, step by step: the field values with their defaults, JSON
  // lists as tuples.
  auto field = [&](std::string_view name, json::Value fallback) {
    auto it = fields.find(name);
    return Field{it == fields.end() ? std::move(fallback) : it->second};
  };
  auto tuple_field = [&](std::string_view name) {
    Field f = field(name, nullptr);
    f.is_tuple = f.value.is_array();
    return f;
  };
  Field n = field("n", {}), c = field("c", {}), k = field("k", {}), groups = field("groups", 1);
  Field spatial = tuple_field("spatial"), filter = tuple_field("filter");
  Field stride = tuple_field("stride"), pad = tuple_field("pad"), dilation = tuple_field("dilation");
  Field layout = field("layout", "NHWC"), dtype = field("dtype", "f16"), bias_relu = field("bias_relu", false);

  ConvSpec s;
  s.n = positive_int("n", n);
  s.c = positive_int("c", c);
  s.k = positive_int("k", k);
  s.groups = positive_int("groups", groups);
  if (!spatial.is_tuple || (spatial.size() != 2 && spatial.size() != 3)) fail("spatial", spatial, "(H, W) or (D, H, W)");
  std::size_t dims = spatial.size();
  // Unset stride/dilation default to 1 and pad to 0 in every dimension.
  for (auto [f, fill] : {std::pair{&stride, 1}, std::pair{&pad, 0}, std::pair{&dilation, 1}}) {
    if (f->value.is_null()) *f = Field{json::Array(dims, json::Value(fill)), true};
  }
  s.spatial = int_tuple("spatial", spatial, dims, 1);
  s.filter = int_tuple("filter", filter, dims, 1);
  s.stride = int_tuple("stride", stride, dims, 1);
  s.pad = int_tuple("pad", pad, dims, 0);
  s.dilation = int_tuple("dilation", dilation, dims, 1);
  if (s.c % s.groups || s.k % s.groups) {
    fail("groups", groups, "a divisor of both c (" + std::to_string(s.c) + ") and k (" + std::to_string(s.k) + ")");
  }
  if (!one_of(layout.value, kLayouts)) fail("layout", layout, "one of " + joined(kLayouts));
  s.layout = layout.value.as_str();
  if (!one_of(dtype.value, kDtypes)) fail("dtype", dtype, "one of " + joined(kDtypes));
  s.dtype = dtype.value.as_str();
  if (!bias_relu.value.is_bool()) fail("bias_relu", bias_relu, "True or False");
  s.bias_relu = bias_relu.value.as_bool();
  std::vector<__int128> sizes = output_sizes(s);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 1) {
      fail("filter", filter,
           "a dilated filter that fits the padded input in dimension " + std::to_string(i) + " (output size " +
               decimal(sizes[i]) + ")");
    }
  }
  return s;
}

json::Value ConvSpec::to_json() const {
  return json::Object{
      {"n", n},
      {"c", c},
      {"k", k},
      {"spatial", list(spatial)},
      {"filter", list(filter)},
      {"stride", list(stride)},
      {"pad", list(pad)},
      {"dilation", list(dilation)},
      {"groups", groups},
      {"layout", layout},
      {"dtype", dtype},
      {"bias_relu", bias_relu},
  };
}

json::Value normalised(const json::Value& spec) { return ConvSpec::from_json(spec).to_json(); }

std::int64_t product(const Shape& sizes) {
  __int128 out = 1;
  for (std::int64_t size : sizes) out = narrow(out * size);
  return static_cast<std::int64_t>(out);
}

std::string shape_repr(const Shape& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

Shape ConvSpec::output() const {
  Shape out;
  for (__int128 size : output_sizes(*this)) out.push_back(narrow(size));
  return out;
}

Shape ConvSpec::input_shape() const {
  return channels_last() ? concat({n}, spatial, {c}) : concat({n, c}, spatial, {});
}

Shape ConvSpec::output_shape() const {
  return channels_last() ? concat({n}, output(), {k}) : concat({n, k}, output(), {});
}

Shape ConvSpec::weight_shape() const {
  return channels_last() ? concat({k}, filter, {c_per_group()}) : concat({k, c_per_group()}, filter, {});
}

std::int64_t ConvSpec::outputs() const { return product(output_shape()); }

}  // namespace rocke::conv
