#include "library/conv/cpp/spec.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "platform/cpp/py/repr.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/types.h"

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
  return v.is_str() && std::ranges::find(names, v.as_str()) != names.end();
}

std::int64_t positive_int(std::string_view field, const Field& f) {
  const bool above = f.value.above_int64();
  if (!above && (!f.value.is_int() || f.value.as_int() < 1)) fail(field, f, "a positive int");
  if (above) fail(field, f, "a positive int " + std::string(kBelow2To63));
  return f.value.as_int();
}

Shape int_tuple(std::string_view field, const Field& f, std::size_t dims, std::int64_t minimum) {
  if (!f.is_tuple || f.size() != dims) {
    fail(field, f, "a tuple of " + std::to_string(dims) + " ints (one per spatial dimension)");
  }
  Shape out;
  for (const json::Value& v : f.value.as_array()) {
    const bool above = v.above_int64();
    if (!above && (!v.is_int() || v.as_int() < minimum)) fail(field, f, "ints >= " + std::to_string(minimum));
    if (above) fail(field, f, "ints >= " + std::to_string(minimum) + " and " + std::string(kBelow2To63));
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

using Wide = std::vector<__int128>;

Wide widen(const Shape& shape) { return {shape.begin(), shape.end()}; }

// repr() of a shape tuple.
std::string tuple_repr(const Wide& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + decimal(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// str(math.prod(factors)), however many bits it needs (Python prints the
// exact value): base-10**9 limbs. Factors are below 2**66 in magnitude.
std::string decimal_product(const Wide& factors) {
  constexpr std::uint64_t kBase = 1000000000;
  std::vector<std::uint64_t> limbs = {1};  // least significant first
  bool negative = false;
  for (__int128 f : factors) {
    negative = negative != (f < 0);
    const unsigned __int128 magnitude = f < 0 ? -f : f;
    unsigned __int128 carry = 0;
    for (std::uint64_t& limb : limbs) {
      const unsigned __int128 v = magnitude * limb + carry;
      limb = static_cast<std::uint64_t>(v % kBase);
      carry = v / kBase;
    }
    for (; carry; carry /= kBase) limbs.push_back(static_cast<std::uint64_t>(carry % kBase));
  }
  while (limbs.size() > 1 && limbs.back() == 0) limbs.pop_back();
  std::string out = std::to_string(limbs.back());
  for (auto it = limbs.rbegin() + 1; it != limbs.rend(); ++it) {
    const std::string digits = std::to_string(*it);
    out += std::string(9 - digits.size(), '0') + digits;
  }
  return (negative && out != "0" ? "-" : "") + out;
}

// A size of the C++ spec (`what`, for the message): one that needs more
// than 64 bits cannot be built. from_json refuses any spec with a tensor
// over kMaxTensorBytes, so only a ConvSpec made by hand gets here.
std::int64_t narrow(__int128 v, const std::string& what) {
  if (v > INT64_MAX || v < INT64_MIN) {
    throw SpecError("ConvSpec: expected " + what + " below 2**63 (the C++ engine's int64 limit), got " + decimal(v) +
                    "; use smaller sizes");
  }
  return static_cast<std::int64_t>(v);
}

// (outer, *spatial, channels) channels-last, (outer, channels, *spatial) channels-first.
template <class T>
std::vector<T> laid_out(bool channels_last, T outer, const std::vector<T>& spatial, T channels) {
  std::vector<T> out = {outer};
  if (!channels_last) out.push_back(channels);
  out.insert(out.end(), spatial.begin(), spatial.end());
  if (channels_last) out.push_back(channels);
  return out;
}

// math.prod(factors) of positive factors, or -1 past kMaxTensorBytes (there
// the exact value is only printed, by decimal_product).
std::int64_t bounded_product(const Wide& factors) {
  __int128 out = 1;
  for (__int128 f : factors) {
    out *= f;
    if (out > kMaxTensorBytes) return -1;
  }
  return static_cast<std::int64_t>(out);
}

// check_tensor_bytes on 128-bit sizes (an output size can pass 2**63).
void check_wide_tensor(std::string_view owner, std::string_view what, const Wide& shape, std::int64_t elem_bytes,
                       std::string_view fix) {
  Wide factors = shape;
  factors.push_back(elem_bytes);
  if (bounded_product(factors) >= 0) return;
  throw SpecError(std::string(owner) + ": expected every tensor at most " + std::to_string(kMaxTensorBytes) +
                  " bytes (2**31 - 1: the kernels' offsets are 32-bit), got the " + std::string(what) + " " +
                  tuple_repr(shape) + " of " + decimal_product(factors) + " bytes; " + std::string(fix));
}

// spec.py's _tensor_limits: the input, weights and output, in that order.
void check_tensor_limits(const ConvSpec& s) {
  const std::int64_t elem = ir::scalar(s.dtype)->nbytes();
  const bool last = s.channels_last();
  const Wide input = laid_out<__int128>(last, s.n, widen(s.spatial), s.c);
  const Wide weights = laid_out<__int128>(last, s.k, widen(s.filter), s.c_per_group());
  const Wide output = laid_out<__int128>(last, s.n, output_sizes(s), s.k);
  // The input and output scale with the batch: the largest n that keeps both under the limit.
  auto sample = [&](const Wide& shape) {
    Wide factors(shape.begin() + 1, shape.end());
    factors.push_back(elem);
    return bounded_product(factors);
  };
  const std::int64_t in = sample(input), out = sample(output);
  const std::int64_t max_n = (in < 0 || out < 0) ? 0 : kMaxTensorBytes / std::max(in, out);
  const std::string batch_fix =
      max_n >= 1
          ? "use a smaller batch (n at most " + std::to_string(max_n) +
                "), or split the batch into launches of at most " + std::to_string(max_n)
          : std::string("even one sample is over the limit: split the spatial extent or the channels into launches");
  check_wide_tensor("ConvSpec", "input", input, elem, batch_fix);
  check_wide_tensor("ConvSpec", "weights", weights, elem, "split the filters (k) into launches");
  check_wide_tensor("ConvSpec", "output", output, elem, batch_fix);
}

json::Value list(const Shape& shape) {
  json::Array out;
  for (std::int64_t v : shape) out.emplace_back(v);
  return out;
}

}  // namespace

ConvSpec ConvSpec::from_json(const json::Value& obj) {
  if (!obj.is_object()) {
    throw SpecError("ConvSpec: expected a JSON object with the fields " + joined(kFields) + ", got " + json::repr(obj));
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
  auto field = [&](std::string_view name, const json::Value& fallback) {
    auto it = fields.find(name);
    return Field{it == fields.end() ? fallback : it->second};
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
  if (!spatial.is_tuple || (spatial.size() != 2 && spatial.size() != 3))
    fail("spatial", spatial, "(H, W) or (D, H, W)");
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
  check_tensor_limits(s);
  return s;
}

void check_tensor_bytes(std::string_view owner, std::string_view what, const Shape& shape, std::int64_t elem_bytes,
                        std::string_view fix) {
  check_wide_tensor(owner, what, widen(shape), elem_bytes, fix);
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
  for (std::int64_t size : sizes) {
    out *= size;  // both below 2**63 in magnitude: no 128-bit overflow
    if (out > INT64_MAX || out < INT64_MIN) {
      throw SpecError("ConvSpec: expected the product of " + tuple_repr(widen(sizes)) +
                      " below 2**63 (the C++ engine's int64 limit), got " + decimal_product(widen(sizes)) +
                      "; use smaller sizes");
    }
  }
  return static_cast<std::int64_t>(out);
}

Shape ConvSpec::output() const {
  const Wide sizes = output_sizes(*this);
  Shape out;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    out.push_back(narrow(sizes[i], "the output size of dimension " + std::to_string(i)));
  return out;
}

Shape ConvSpec::input_shape() const { return laid_out(channels_last(), n, spatial, c); }

Shape ConvSpec::output_shape() const { return laid_out(channels_last(), n, output(), k); }

Shape ConvSpec::weight_shape() const { return laid_out(channels_last(), k, filter, c_per_group()); }

std::int64_t ConvSpec::outputs() const { return product(output_shape()); }

}  // namespace rocke::conv
