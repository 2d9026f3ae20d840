// conv_fwd_split_k_reduce, mirroring library/conv/split_k_reduce.py op for op.
//
//     conv_fwd_split_k_reduce_<case id>(ws, y, [bias])
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own
// statement, in Python's order.
#include "library/conv/cpp/split_k_reduce.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "library/conv/family_names.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/gemm.h"

namespace rocke::conv {
namespace {

using ir::Value;

constexpr int kWorkgroup = 256;
constexpr std::array<int, 3> kVectors = {4, 2, 1};  // widest first
// ReduceSpec.tensor, the default first.
constexpr std::array<std::string_view, 2> kTensors = {"y", "dw"};

// v f32 values at p: one load, its elements (_load).
std::vector<Value*> load(ir::KernelBuilder& b, Value* p, int v) {
  const ir::Type* f32 = ir::scalar("f32");
  if (v == 1) return {b.load(p, f32)};
  Value* loaded = b.load(p, ir::vector(f32, v));
  std::vector<Value*> out;
  for (int j = 0; j < v; ++j) out.push_back(b.extract(loaded, j));
  return out;
}

Value* channel(ir::KernelBuilder& b, Value* e, const Channels& ch) {
  Value* index = ch.inner == 1 ? e : b.udiv(e, ch.inner);
  return b.urem(index, ch.count);
}

// The bias of elements first .. first + v - 1 (_bias).
std::vector<Value*> bias_of(ir::KernelBuilder& b, Value* bias, Value* first, const Channels& ch, int v) {
  const ir::Type* f32 = ir::scalar("f32");
  if (ch.inner == 1 && ch.count % v == 0) {  // v consecutive channels
    Value* c = channel(b, first, ch);
    Value* bytes = b.mul(c, 4);
    Value* p = b.offset(bias, bytes);
    return load(b, p, v);
  }
  if (ch.inner % v == 0) {  // one channel
    Value* c = channel(b, first, ch);
    Value* bytes = b.mul(c, 4);
    Value* p = b.offset(bias, bytes);
    return std::vector<Value*>(v, b.load(p, f32));
  }
  std::vector<Value*> out;
  for (int j = 0; j < v; ++j) {
    Value* e = b.add(first, j);
    Value* c = channel(b, e, ch);
    Value* bytes = b.mul(c, 4);
    Value* p = b.offset(bias, bytes);
    out.push_back(b.load(p, f32));
  }
  return out;
}

std::unique_ptr<ir::Kernel> build(const family::Case& cs) {
  const ReduceSpec s = ReduceSpec::from_json(cs.spec);
  std::optional<Channels> ch;
  if (s.conv.bias) ch = channels_of(s.conv);
  const Epilogue epilogue{s.conv.activation, s.conv.residual_at(), s.conv.scale_value()};
  return reduce_kernel(std::string(family_names::conv::split_k_reduce) + "_" + cs.id, cs.arch, s.elements(), s.split_k,
                       s.conv.dtype, ch, s.conv.residual != "none", epilogue);
}

json::Value reduce_normalised(const json::Value& spec) { return ReduceSpec::from_json(spec).to_json(); }

const family::Registration kRegistration({
    .name = family_names::conv::split_k_reduce,
    .build = &build,
    .spec_json = &reduce_normalised,
});

}  // namespace

Channels channels_of(const ConvSpec& conv) { return {conv.k, conv.channels_last() ? 1 : product(conv.output())}; }

int vector_width(std::int64_t elements) {
  for (int v : kVectors) {
    if (elements % v == 0) return v;
  }
  return 1;
}

std::unique_ptr<ir::Kernel> reduce_kernel(std::string name, std::string_view arch, std::int64_t elements,
                                          std::int64_t splits, const std::string& dtype,
                                          std::optional<Channels> channels, bool residual, const Epilogue& epilogue) {
  const ir::Type* elem = ir::scalar(dtype);
  const int v = vector_width(elements);
  ir::KernelBuilder b(std::move(name), arch, {kWorkgroup, 1, 1});
  const ir::Type* global = ir::ptr("global");
  Value* ws = b.arg("ws", global);
  Value* y = b.arg("y", global);
  Value* bias = channels ? b.arg("bias", global) : nullptr;
  Value* near = residual ? b.arg("residual", global) : nullptr;
  Value* block = b.block_id(0);
  Value* base = b.mul(block, kWorkgroup);
  Value* tid = b.thread_id(0);
  Value* lane = b.add(base, tid);
  Value* first = b.mul(lane, v);
  Value* inside = b.cmp("lt", first, elements);
  b.if_(inside, {}, [&] {
    Value* bytes = b.mul(first, 4);
    Value* p = b.offset(ws, bytes);
    std::vector<Value*> total = load(b, p, v);
    for (std::int64_t s = 1; s < splits; ++s) {
      Value* e = b.add(first, s * elements);
      Value* part_bytes = b.mul(e, 4);
      Value* q = b.offset(ws, part_bytes);
      const std::vector<Value*> part = load(b, q, v);
      for (int j = 0; j < v; ++j) total[j] = b.add(total[j], part[j]);
    }
    const std::vector<Value*> biases = bias != nullptr ? bias_of(b, bias, first, *channels, v) : std::vector<Value*>{};
    std::vector<Value*> residuals;
    if (near != nullptr) {
      Value* r_bytes = b.mul(first, elem->nbytes());
      Value* rp = b.offset(near, r_bytes);
      Value* loaded = b.load(rp, v == 1 ? elem : ir::vector(elem, v));
      for (int j = 0; j < v; ++j) {
        Value* x = v == 1 ? loaded : b.extract(loaded, j);
        residuals.push_back(b.convert(x, ir::scalar("f32")));
      }
    }
    for (int j = 0; j < v; ++j) {
      tile::Addend add_bias, add_residual;
      if (bias != nullptr) add_bias = [&](int) { return biases[j]; };
      if (near != nullptr) add_residual = [&](int) { return residuals[j]; };
      total[j] = tile::finish(b, {total[j]}, epilogue.activation, add_bias, add_residual, epilogue.residual_at,
                              epilogue.scale)[0];
    }
    std::vector<Value*> out;
    for (Value* t : total) out.push_back(b.convert(t, elem));
    Value* y_bytes = b.mul(first, elem->nbytes());
    Value* yp = b.offset(y, y_bytes);
    Value* value = v == 1 ? out[0] : b.build(out);
    b.store(yp, value);
  });
  return b.finish();
}

ReduceSpec ReduceSpec::from_json(const json::Value& obj) {
  const bool fields_ok = obj.is_object() && obj.as_object().contains("conv") && obj.as_object().contains("split_k") &&
                         obj.as_object().size() == 2 + static_cast<std::size_t>(obj.as_object().contains("tensor"));
  if (!fields_ok) {
    throw ReduceSpecError("ReduceSpec", obj, "a JSON object with the fields conv, split_k and optionally tensor",
                          json::Array{"conv", "split_k", "tensor"});
  }
  const json::Object& fields = obj.as_object();
  const json::Value& conv = fields.at("conv");
  // __post_init__, in its order: only a dict becomes a ConvSpec.
  if (!conv.is_object()) throw ReduceSpecError("ReduceSpec.conv", conv, "a ConvSpec (a JSON object)");
  ReduceSpec s;
  s.conv = ConvSpec::from_json(conv);
  const json::Value& split = fields.at("split_k");
  if (!split.above_int64() && (!split.is_int() || split.as_int() < 2)) {
    throw ReduceSpecError("ReduceSpec.split_k", split, "an int of at least 2", nullptr,
                          "an unsplit layer has no reduce (build conv_igemm_fwd with split_k 1)");
  }
  if (split.above_int64()) {
    throw ReduceSpecError("ReduceSpec.split_k", split, "an int of at least 2 and " + std::string(kBelow2To63),
                          kMaxInt64);
  }
  s.split_k = split.as_int();
  if (fields.contains("tensor")) {
    const json::Value& tensor = fields.at("tensor");
    if (!tensor.is_str() || std::find(kTensors.begin(), kTensors.end(), tensor.as_str()) == kTensors.end()) {
      throw ReduceSpecError("ReduceSpec.tensor", tensor, "one of y, dw", json::Array{"y", "dw"});
    }
    s.tensor = tensor.as_str();
  }
  if (auto found = s.conv.epilogue_field(); found && s.tensor == "dw") {  // a weight gradient has no epilogue
    const auto& [field, value, fallback] = *found;
    throw ReduceSpecError("ConvSpec." + field, value,
                          json::canonical(fallback) + " (a weight gradient's reduce applies no epilogue)",
                          json::Array{fallback}, "drop " + field);
  }
  Shape workspace = s.shape();
  workspace.insert(workspace.begin(), s.split_k);
  check_tensor_bytes("ReduceSpec.split_k", "f32 workspace", workspace, 4, "take a smaller split");
  return s;
}

json::Value ReduceSpec::to_json() const {
  json::Object out{{"conv", conv.to_json()}, {"split_k", split_k}};
  if (tensor != kTensors[0]) out.emplace("tensor", tensor);  // the default is left out
  return out;
}

}  // namespace rocke::conv
