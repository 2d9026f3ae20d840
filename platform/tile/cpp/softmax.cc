#include "platform/tile/cpp/softmax.h"

#include <string>

#include "platform/arch/cpp/arch.h"
#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/mma.h"
#include "platform/ir/cpp/types.h"

namespace rocke::tile::softmax {
namespace {

[[noreturn]] void refuse(std::string_view op, std::string_view generation, const std::string& allowed) {
  throw errors::FieldError(errors::kFieldError, "softmax.chain",
                           json::Object{{"generation", std::string(generation)}, {"op", std::string(op)}}, nullptr,
                           "softmax.chain: expected " + allowed + ", got " + std::string(op) +
                               (allowed.starts_with("an op whose") ? " on " + std::string(generation) : ""));
}

// The wave size of `op`'s form on `generation` (an arch of that generation has it).
int form_wave(std::string_view op, std::string_view generation) {
  for (const arch::Arch& a : arch::all()) {
    if (a.generation != generation) continue;
    for (const arch::MatrixOp& m : a.matrix) {
      if (m.op == op) return m.wave;
    }
  }
  return 0;
}

}  // namespace

const Fragment& chain(std::string_view op, std::string_view generation) {
  const Fragment* frag = fragment(op, generation);
  if (frag == nullptr) refuse(op, generation, "an op with a fragment layout on " + std::string(generation));
  // NOLINTNEXTLINE(bugprone-unchecked-optional-access): an op with a fragment layout has a shape
  const ir::mma::Shape s = *ir::mma::shape(op);
  const int c = ir::mma::fragment_types(op, generation).c->lanes();
  bool ok = s.m == s.n && s.n == s.k && s.k == frag->rows && frag->rows == frag->c_n && c == frag->per_lane;
  const int wave = form_wave(op, generation);
  for (int lane = 0; ok && lane < wave; ++lane) {
    const int origin = (lane / frag->rows) % frag->groups * frag->per_lane;
    for (int v = 0; v < c; ++v) {
      const int row = frag->c_run * (lane / frag->c_n) + v % frag->c_run + frag->c_stride * (v / frag->c_run);
      ok = ok && row == origin + v;
    }
  }
  if (!ok) refuse(op, generation, "an op whose accumulator is its own B operand's layout");
  return *frag;
}

ir::Value* across(ir::KernelBuilder& b, const Fragment& frag, ir::Value* x, Combine combine) {
  return butterfly(b, x, combine, frag.c_n, b.wave_size());
}

ir::Value* butterfly(ir::KernelBuilder& b, ir::Value* x, Combine combine, int first, int end) {
  ir::Value* lane = b.lane_id();
  for (int step = first; step < end; step *= 2) {
    ir::Value* other = b.xor_(lane, step);
    ir::Value* addr = b.mul(other, kLaneBytes);
    ir::Value* got = b.bpermute(addr, x);
    x = (b.*combine)(x, got);
  }
  return x;
}

ir::Value* scaled_exp(ir::KernelBuilder& b, ir::Value* s, double scale, ir::Value* m) {
  ir::Value* k = b.const_(scale * kLog2e, ir::scalar("f32"));
  ir::Value* minus = b.neg(m);
  ir::Value* arg = b.fma(s, k, minus);
  return b.exp2(arg);
}

ir::Value* reciprocal(ir::KernelBuilder& b, ir::Value* total) {
  ir::Value* root = b.rsqrt(total);
  ir::Value* positive = b.cmp("gt", total, 0.0);
  ir::Value* square = b.mul(root, root);
  return b.select(positive, square, 0.0);
}

ir::Value* repack(ir::KernelBuilder& b, const std::vector<ir::Value*>& values, const ir::Type* elem) {
  ir::Value* vec = b.build(values);
  return b.convert(vec, ir::vector(elem, static_cast<int>(values.size())));
}

}  // namespace rocke::tile::softmax
