// Row statistics of matrix-core accumulators for an online softmax,
// mirroring platform/tile/softmax.py (which says why each helper is what it is).
//
//   const Fragment* f = rocke::tile::softmax::chain("mma_16x16x16_f16_f32", "gfx9");
//   Value* top = rocke::tile::softmax::across(b, *f, x, &ir::KernelBuilder::max);
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own statement,
// in Python's order.
#pragma once

#include <numbers>
#include <string_view>
#include <vector>

#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/core.h"
#include "platform/tile/cpp/fragments.h"

namespace rocke::tile::softmax {

// lane.bpermute addresses lanes in bytes.
inline constexpr int kLaneBytes = 4;
// log2(e) and ln(2), the doubles softmax.LOG2E and softmax.LN2 spell.
inline constexpr double kLog2e = std::numbers::log2e;
inline constexpr double kLn2 = std::numbers::ln2;

// A builder's binary op (&ir::KernelBuilder::max, &ir::KernelBuilder::add).
using Combine = ir::Value* (ir::KernelBuilder::*)(ir::Operand, ir::Operand);

// The Fragment of `op` on `generation` when its C fragment is its own B
// operand's layout (softmax.chain); errors::FieldError with Python's facts otherwise.
const Fragment& chain(std::string_view op, std::string_view generation);

// `combine` of the f32 `x` over the lanes holding the same C column (softmax.across).
ir::Value* across(ir::KernelBuilder& b, const Fragment& frag, ir::Value* x, Combine combine);

// `combine` of the 32-bit `x` over the lanes whose ids differ from this one's
// only in the bits first, 2 first, ... below `end` (softmax.butterfly).
ir::Value* butterfly(ir::KernelBuilder& b, ir::Value* x, Combine combine, int first, int end);

// 1 / total for an f32 row sum, 0 where it is 0: rsqrt(total)^2 (softmax.reciprocal).
ir::Value* reciprocal(ir::KernelBuilder& b, ir::Value* total);

// 2^(scale log2(e) s - m), m in log2 units: one fma and one exp2 (softmax.scaled_exp).
ir::Value* scaled_exp(ir::KernelBuilder& b, ir::Value* s, double scale, ir::Value* m);

// The f32 `values` as one vector of `elem` (softmax.repack).
ir::Value* repack(ir::KernelBuilder& b, const std::vector<ir::Value*>& values, const ir::Type* elem);

}  // namespace rocke::tile::softmax
