#include "library/conv/cpp/common.h"

#include <variant>

#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/gemm.h"

namespace rocke::conv {
namespace {

using ir::Value;

const ir::Type* f32() { return ir::scalar("f32"); }

}  // namespace

Value* flatten(ir::KernelBuilder& b, const std::vector<Value*>& dims, const Shape& sizes) {
  Value* index = dims[0];
  for (std::size_t i = 1; i < dims.size(); ++i) {
    Value* scaled = b.mul(index, sizes[i]);
    index = b.add(scaled, dims[i]);
  }
  return index;
}

std::vector<Value*> unflatten(ir::KernelBuilder& b, Value* index, const Shape& sizes) {
  std::vector<Value*> coords;  // innermost first
  for (std::size_t i = sizes.size() - 1; i >= 1; --i) {
    coords.push_back(b.urem(index, sizes[i]));
    index = b.udiv(index, sizes[i]);
  }
  std::vector<Value*> out = {index};
  out.insert(out.end(), coords.rbegin(), coords.rend());
  return out;
}

Value* layout_index(ir::KernelBuilder& b, const ConvSpec& spec, Value* n, const std::vector<Value*>& pos,
                    Value* channel, const Shape& shape) {
  std::vector<Value*> dims = {n};
  if (spec.channels_last()) {
    dims.insert(dims.end(), pos.begin(), pos.end());
    dims.push_back(channel);
  } else {
    dims.push_back(channel);
    dims.insert(dims.end(), pos.begin(), pos.end());
  }
  return flatten(b, dims, shape);
}

// common.ELEM maps each dtype to the scalar type of the same name.
Frame::Frame(std::string name, const ConvSpec& spec_, std::string_view arch)
    : spec(spec_), elem(ir::scalar(spec_.dtype)), b(std::move(name), arch, {kWorkgroup, 1, 1}) {
  const ir::Type* global = ir::ptr("global");
  x = b.arg("x", global);
  w = b.arg("w", global);
  y = b.arg("y", global);
  if (spec.bias) bias = b.arg("bias", global);
  if (spec.residual != "none") residual = b.arg("residual", global);
  Value* block = b.block_id(0);
  Value* first = b.mul(block, kWorkgroup);
  Value* thread = b.thread_id(0);
  gid = b.add(first, thread);
  std::vector<Value*> coords = unflatten(b, gid, spec.output_shape());
  n = coords[0];
  if (spec.channels_last()) {
    o.assign(coords.begin() + 1, coords.end() - 1);
    k = coords.back();
  } else {
    k = coords[1];
    o.assign(coords.begin() + 2, coords.end());
  }
}

Value* Frame::tap(Value* c, const std::vector<ir::Operand>& taps) {
  std::vector<Value*> pos;
  Value* inside = nullptr;
  for (std::size_t i = 0; i < o.size(); ++i) {
    std::int64_t stride = spec.stride[i], pad = spec.pad[i], dil = spec.dilation[i];
    Value* pos_x;
    if (const auto* f = std::get_if<Value*>(&taps[i].v)) {
      Value* scaled = b.mul(o[i], stride);
      Value* dilated = b.mul(*f, dil);
      Value* shift = b.sub(dilated, pad);
      pos_x = b.add(scaled, shift);
    } else {
      Value* scaled = b.mul(o[i], stride);
      pos_x = b.add(scaled, std::get<std::int64_t>(taps[i].v) * dil - pad);
    }
    Value* above = b.cmp("ge", pos_x, 0);
    Value* below = b.cmp("lt", pos_x, spec.spatial[i]);
    Value* ok = b.and_(above, below);
    inside = inside == nullptr ? ok : b.and_(inside, ok);
    pos.push_back(b.select(ok, pos_x, 0));  // a safe address; the value is masked below
  }
  Value* index = layout_index(b, spec, n, pos, c, spec.input_shape());
  Value* bytes = b.mul(index, elem->nbytes());
  Value* address = b.offset(x, bytes);
  Value* loaded = b.load(address, elem);
  Value* value = b.convert(loaded, f32());
  return b.select(inside, value, 0.0);
}

Value* Frame::weight(Value* index) {
  Value* bytes = b.mul(index, elem->nbytes());
  Value* address = b.offset(w, bytes);
  Value* loaded = b.load(address, elem);
  return b.convert(loaded, f32());
}

void Frame::store(Value* acc) {
  tile::Addend add_bias, add_residual;
  if (bias != nullptr) {
    add_bias = [&](int) {
      Value* bytes = b.mul(k, 4);
      Value* address = b.offset(bias, bytes);
      return b.load(address, f32());
    };
  }
  if (residual != nullptr) {  // the output's shape and layout: this lane's element
    add_residual = [&](int) {
      Value* bytes = b.mul(gid, elem->nbytes());
      Value* address = b.offset(residual, bytes);
      Value* loaded = b.load(address, elem);
      return b.convert(loaded, f32());
    };
  }
  acc = tile::finish(b, {acc}, spec.activation, add_bias, add_residual, spec.residual_at(), spec.scale_value())[0];
  Value* bytes = b.mul(gid, elem->nbytes());
  Value* address = b.offset(y, bytes);
  Value* out = b.convert(acc, elem);
  b.store(address, out);
}

std::unique_ptr<ir::Kernel> Frame::kernel(const std::function<void()>& body) {
  Value* live = b.cmp("lt", gid, spec.outputs());
  b.if_(live, {}, body);
  return b.finish();
}

}  // namespace rocke::conv
