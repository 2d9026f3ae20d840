#include "platform/tile/cpp/rows.h"

#include <cstdint>

#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/core.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/softmax.h"

namespace rocke::tile::rows {

ir::Value* wave(ir::KernelBuilder& b, ir::Value* x, softmax::Combine combine) {
  ir::Value* lane = b.lane_id();
  for (int step = 1; step < b.wave_size(); step *= 2) {
    ir::Value* other = b.xor_(lane, step);
    ir::Value* addr = b.mul(other, softmax::kLaneBytes);
    ir::Value* got = b.bpermute(addr, x);
    x = (b.*combine)(x, got);
  }
  return x;
}

std::int64_t slots_bytes(int waves) { return waves > 1 ? std::int64_t{waves} * kSlotBytes : 0; }

ir::Value* workgroup(ir::KernelBuilder& b, ir::Value* x, softmax::Combine combine, ir::Value* slots, int waves) {
  x = wave(b, x, combine);
  if (waves == 1) return x;
  ir::Value* tid = b.thread_id(0);
  ir::Value* w = b.udiv(tid, b.wave_size());
  ir::Value* lane = b.lane_id();
  ir::Value* first = b.cmp("eq", lane, 0);
  b.if_(first, {}, [&] {
    ir::Value* at = b.mul(w, kSlotBytes);
    ir::Value* slot = b.offset(slots, at);
    b.store(slot, x);
  });
  b.barrier();
  const ir::Type* f32 = ir::scalar("f32");
  ir::Value* total = b.load(slots, f32);
  for (int i = 1; i < waves; ++i) {
    ir::Value* slot = b.offset(slots, i * kSlotBytes);
    ir::Value* got = b.load(slot, f32);
    total = (b.*combine)(total, got);
  }
  b.barrier();  // every lane has read the slots: the next reduction may write them
  return total;
}

}  // namespace rocke::tile::rows
