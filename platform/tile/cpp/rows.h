// Row reductions over a workgroup, mirroring platform/tile/rows.py (which
// says how they work): a statistic of f32 values spread over every lane of
// every wave, which every lane then holds.
//
//   Value* total = rocke::tile::rows::workgroup(b, x, &ir::KernelBuilder::add, slots, waves);
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own statement,
// in Python's order.
#pragma once

#include <cstdint>

#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/core.h"
#include "platform/tile/cpp/softmax.h"

namespace rocke::tile::rows {

// rows.SLOT_BYTES: one f32 per wave.
inline constexpr int kSlotBytes = 4;

// `combine` of the f32 `x` over every lane of the wave (rows.wave).
ir::Value* wave(ir::KernelBuilder& b, ir::Value* x, softmax::Combine combine);

// LDS bytes `workgroup` needs for `waves` waves, none for one (rows.slots_bytes).
std::int64_t slots_bytes(int waves);

// `combine` of the f32 `x` over every lane of the workgroup's `waves` waves
// (rows.workgroup); `slots` an LDS allocation of slots_bytes(waves) bytes
// (nullptr for one wave).
ir::Value* workgroup(ir::KernelBuilder& b, ir::Value* x, softmax::Combine combine, ir::Value* slots, int waves);

}  // namespace rocke::tile::rows
