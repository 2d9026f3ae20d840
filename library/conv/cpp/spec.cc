#include "library/conv/cpp/spec.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/family/cpp/family.h"
#include "platform/family/cpp/fields.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/gemm.h"

namespace rocke::conv {
namespace {

using family::SpecError;

constexpr std::string_view kSpecError = "conv.spec.SpecError";
constexpr std::array<std::string_view, 2> kLayouts = {"NHWC", "NCHW"};
constexpr std::array<std::string_view, 3> kDtypes = {"f32", "f16", "bf16"};

// The dataclass fields in declaration order, which the messages list.
constexpr std::array<std::string_view, 15> kFields = {
    "n",      "c",      "k",     "spatial", "filter",     "stride",   "pad",   "dilation",
    "groups", "layout", "dtype", "bias",    "activation", "residual", "scale",
};
// Fields without a default: from_json names the first one missing.
constexpr std::array<std::string_view, 5> kRequired = {"n", "c", "k", "spatial", "filter"};

// SpecError for ConvSpec.`field` (ConvSpec for an empty one).
constexpr family::SpecRefusal fail(kSpecError, "ConvSpec");

template <typename Names>
bool one_of(const json::Value& v, const Names& names) {
  return v.is_str() && std::ranges::find(names, v.as_str()) != std::ranges::end(names);
}

std::int64_t positive_int(std::string_view field, const json::Value& v) {
  if (v.above_int64()) fail(field, v, "a positive int " + std::string(kBelow2To63), kMaxInt64);
  if (!v.is_int() || v.as_int() < 1) fail(field, v, "a positive int");
  return v.as_int();
}

Shape int_tuple(std::string_view field, const json::Value& v, std::size_t dims, std::int64_t minimum) {
  if (!v.is_array() || v.as_array().size() != dims) {
    fail(field, v, "a list of " + std::to_string(dims) + " ints (one per spatial dimension)");
  }
  Shape out;
  for (const json::Value& item : v.as_array()) {
    // Python's order: a non-int or small item first, then one past int64.
    if (!item.above_int64() && (!item.is_int() || item.as_int() < minimum)) {
      fail(field, v, "ints >= " + std::to_string(minimum));
    }
    if (item.above_int64())
      fail(field, v, "ints >= " + std::to_string(minimum) + " " + std::string(kBelow2To63), kMaxInt64);
    out.push_back(item.as_int());
  }
  return out;
}

// The output size of dimension i, or nullopt where the dilated filter does
// not fit the padded input (Python's output size < 1). The padded size
// x + 2 * pad is below 2**63 (from_json refuses more), so only the dilated
// filter's extent can overflow, and then it is larger than the input.
std::optional<std::int64_t> output_size(const ConvSpec& s, std::size_t i) {
  const std::int64_t padded = s.spatial[i] + 2 * s.pad[i] - 1;
  std::int64_t extent = 0;
  if (__builtin_mul_overflow(s.dilation[i], s.filter[i] - 1, &extent) || extent > padded) return std::nullopt;
  return (padded - extent) / s.stride[i] + 1;
}

// math.prod(factors) of positive factors, or nullopt past `limit`.
std::optional<std::int64_t> bounded_product(const Shape& factors, std::int64_t limit) {
  std::int64_t out = 1;
  for (std::int64_t f : factors) {
    if (__builtin_mul_overflow(out, f, &out) || out > limit) return std::nullopt;
  }
  return out;
}

// (outer, *spatial, channels) channels-last, (outer, channels, *spatial) channels-first.
Shape laid_out(bool channels_last, std::int64_t outer, const Shape& spatial, std::int64_t channels) {
  Shape out = {outer};
  if (!channels_last) out.push_back(channels);
  out.insert(out.end(), spatial.begin(), spatial.end());
  if (channels_last) out.push_back(channels);
  return out;
}

// spec.py's _tensor_limits: the input, weights and output, in that order.
void check_tensor_limits(const ConvSpec& s) {
  const std::int64_t elem = ir::scalar(s.dtype)->nbytes();
  // The input and output scale with the batch: the largest n that keeps both under the limit.
  auto sample = [&](const Shape& shape) {
    Shape factors(shape.begin() + 1, shape.end());
    factors.push_back(elem);
    return bounded_product(factors, kMaxTensorBytes);
  };
  const Shape input = s.input_shape(), output = s.output_shape();
  const std::optional<std::int64_t> in = sample(input), out = sample(output);
  const std::int64_t max_n = (!in || !out) ? 0 : kMaxTensorBytes / std::max(*in, *out);
  const std::string batch_fix =
      max_n >= 1 ? "use a smaller batch (n at most " + std::to_string(max_n) + "), or split it into launches"
                 : std::string("even one sample is over the limit: split the spatial extent or the channels");
  check_tensor_bytes("ConvSpec", "input", input, elem, batch_fix, "ConvSpec.input");
  check_tensor_bytes("ConvSpec", "weights", s.weight_shape(), elem, "split the filters (k) into launches",
                     "ConvSpec.weights");
  check_tensor_bytes("ConvSpec", "output", output, elem, batch_fix, "ConvSpec.output");
}

json::Value list(const Shape& shape) {
  json::Array out;
  for (std::int64_t v : shape) out.emplace_back(v);
  return out;
}

}  // namespace

ConvSpec ConvSpec::from_json(const json::Value& obj) {
  if (!obj.is_object())
    fail("", obj, "a JSON object with the fields " + family::joined(kFields), family::listed(kFields));
  const json::Object& fields = obj.as_object();
  // Python walks the keys in the object's order; json::Object is sorted, as
  // the canonical case lists are, so the first unknown key is the same there.
  for (const auto& [key, value] : fields) {
    if (!one_of(json::Value(key), kFields)) {
      fail(key, key, "one of the fields " + family::joined(kFields), family::listed(kFields),
           "drop it or fix its name");
    }
  }
  for (std::string_view name : kRequired) {
    if (!fields.contains(name)) fail(name, nullptr, "a value (the field is required)", nullptr, "give it");
  }
  // __post_init__, step by step, the fields with their defaults.
  auto field = [&](std::string_view name, const json::Value& fallback) {
    auto it = fields.find(name);
    return it == fields.end() ? fallback : it->second;
  };
  json::Value spatial = field("spatial", nullptr), filter = field("filter", nullptr);
  json::Value stride = field("stride", nullptr), pad = field("pad", nullptr), dilation = field("dilation", nullptr);
  const json::Value groups = field("groups", 1), layout = field("layout", "NHWC"), dtype = field("dtype", "f16");
  const json::Value bias = field("bias", false), activation = field("activation", "none");
  const json::Value residual = field("residual", "none"), scale = field("scale", "1");

  ConvSpec s;
  s.n = positive_int("n", field("n", nullptr));
  s.c = positive_int("c", field("c", nullptr));
  s.k = positive_int("k", field("k", nullptr));
  s.groups = positive_int("groups", groups);
  if (!spatial.is_array() || (spatial.as_array().size() != 2 && spatial.as_array().size() != 3)) {
    fail("spatial", spatial, "[H, W] or [D, H, W]");
  }
  const std::size_t dims = spatial.as_array().size();
  // Unset stride/dilation default to 1 and pad to 0 in every dimension.
  for (auto [f, fill] : {std::pair{&stride, 1}, std::pair{&pad, 0}, std::pair{&dilation, 1}}) {
    if (f->is_null()) *f = json::Array(dims, json::Value(fill));
  }
  s.spatial = int_tuple("spatial", spatial, dims, 1);
  s.filter = int_tuple("filter", filter, dims, 1);
  s.stride = int_tuple("stride", stride, dims, 1);
  s.pad = int_tuple("pad", pad, dims, 0);
  s.dilation = int_tuple("dilation", dilation, dims, 1);
  for (std::size_t i = 0; i < dims; ++i) {
    if (s.pad[i] > (kMaxInt64 - s.spatial[i]) / 2) {
      fail("pad", pad, "pads that keep every padded size (spatial + 2 * pad) " + std::string(kBelow2To63), kMaxInt64);
    }
  }
  if (s.c % s.groups || s.k % s.groups) {
    fail("groups", groups, "a divisor of both c (" + std::to_string(s.c) + ") and k (" + std::to_string(s.k) + ")");
  }
  if (!one_of(layout, kLayouts)) fail("layout", layout, "one of " + family::joined(kLayouts), family::listed(kLayouts));
  s.layout = layout.as_str();
  if (!one_of(dtype, kDtypes)) fail("dtype", dtype, "one of " + family::joined(kDtypes), family::listed(kDtypes));
  s.dtype = dtype.as_str();
  // tile.gemm.check_epilogue_fields.
  if (!bias.is_bool()) fail("bias", bias, "true or false");
  s.bias = bias.as_bool();
  if (!one_of(activation, tile::kActivations)) {
    fail("activation", activation, "one of " + family::joined(tile::kActivations), family::listed(tile::kActivations));
  }
  s.activation = activation.as_str();
  std::vector<std::string_view> residuals = {"none"};
  residuals.insert(residuals.end(), std::begin(tile::kResiduals), std::end(tile::kResiduals));
  if (!one_of(residual, residuals))
    fail("residual", residual, "one of " + family::joined(residuals), family::listed(residuals));
  s.residual = residual.as_str();
  if (!scale.is_str() || !tile::scale_value(scale.as_str())) {
    fail("scale", scale, "a positive decimal string such as '0.5' (finite and above 0 as f32)");
  }
  s.scale = scale.as_str();
  for (std::size_t i = 0; i < dims; ++i) {
    if (!output_size(s, i)) {
      fail("filter", filter, "a dilated filter that fits the padded input in dimension " + std::to_string(i), nullptr,
           "shrink the filter or the dilation, or pad more");
    }
  }
  check_tensor_limits(s);
  return s;
}

void check_tensor_bytes(std::string_view owner, std::string_view what, const Shape& shape, std::int64_t elem_bytes,
                        std::string_view fix, std::string_view field, std::string_view python_class) {
  Shape factors = shape;
  factors.push_back(elem_bytes);
  if (bounded_product(factors, kMaxTensorBytes)) return;
  const std::string name(field.empty() ? owner : field);
  const json::Value value = json::Array(shape.begin(), shape.end());
  throw SpecError(std::string(python_class), name, value, kMaxTensorBytes,
                  name + ": expected every tensor at most " + std::to_string(kMaxTensorBytes) +
                      " bytes (the kernels' offsets are 32-bit), got the " + std::string(what) + " " +
                      json::canonical(value) + ", larger; " + std::string(fix));
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
      {"bias", bias},
      {"activation", activation},
      {"residual", residual},
      {"scale", scale},
  };
}

std::optional<std::tuple<std::string, json::Value, json::Value>> ConvSpec::epilogue_field() const {
  if (bias) return std::tuple{std::string("bias"), json::Value(true), json::Value(false)};
  if (activation != "none") return std::tuple{std::string("activation"), json::Value(activation), json::Value("none")};
  if (residual != "none") return std::tuple{std::string("residual"), json::Value(residual), json::Value("none")};
  if (scale_value() != 1.0) return std::tuple{std::string("scale"), json::Value(scale), json::Value("1")};
  return std::nullopt;
}

double ConvSpec::scale_value() const { return tile::scale_value(scale).value_or(1.0); }

json::Value normalised(const json::Value& spec) { return ConvSpec::from_json(spec).to_json(); }

std::int64_t product(const Shape& sizes) {
  const std::optional<std::int64_t> out = bounded_product(sizes, kMaxInt64);
  if (!out) {
    const json::Value value = json::Array(sizes.begin(), sizes.end());
    fail("", value, "sizes whose product is " + std::string(kBelow2To63), kMaxInt64, "use smaller sizes");
  }
  return *out;
}

Shape ConvSpec::output() const {
  Shape out;
  for (std::size_t i = 0; i < spatial.size(); ++i) {
    const std::optional<std::int64_t> size = output_size(*this, i);
    if (!size) {
      fail("filter", json::Array(filter.begin(), filter.end()),
           "a dilated filter that fits the padded input in dimension " + std::to_string(i));
    }
    out.push_back(*size);
  }
  return out;
}

Shape ConvSpec::input_shape() const { return laid_out(channels_last(), n, spatial, c); }

Shape ConvSpec::output_shape() const { return laid_out(channels_last(), n, output(), k); }

Shape ConvSpec::weight_shape() const { return laid_out(channels_last(), k, filter, c_per_group()); }

std::int64_t ConvSpec::outputs() const { return product(output_shape()); }

}  // namespace rocke::conv
