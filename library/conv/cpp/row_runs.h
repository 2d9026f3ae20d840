// conv_igemm_fwd's row runs, mirroring library/conv/row_runs.py op for op
// (its docstring says why and how): a small-C layer's reduction by filter
// rows, each padded to the k step with zero weights, each row's X x C
// elements one run of vector loads.
//
// ORDER (platform/ir/cpp/builder.h): every builder call that makes an op is
// its own statement, in the order Python evaluates the expression it mirrors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "library/conv/cpp/spec.h"
#include "platform/ir/cpp/builder.h"
#include "platform/tile/cpp/gather.h"

namespace rocke::conv {

// A lane's mask of padded rows is one i32, a bit per row (row_runs.MAX_ROWS).
inline constexpr std::int64_t kMaxRows = 31;

// The run of one filter row: X x C elements (piece).
std::int64_t row_piece(const ConvSpec& c);
// Filter rows: every filter dim but the last (rows).
std::int64_t filter_rows(const ConvSpec& c);
// Why `c` cannot be gathered by row runs with k steps of `block_k` (refusal); nullopt: it can.
std::optional<std::string> row_runs_refusal(const ConvSpec& c, std::int64_t block_k);
// The first im2col row whose runs all start at or after x's first element (fast_from).
std::int64_t row_runs_fast_from(const ConvSpec& c);
// The first im2col row whose runs may end past x (fast_to); 0: none.
std::int64_t row_runs_fast_to(const ConvSpec& c);

// The im2col matrix (A) as a stepped, patched tile::Gather over x (im2col).
tile::Gather row_runs_im2col(const ConvSpec& c, std::int64_t block_k, ir::Value* group);
// B, the filters by rows padded to block_k, as a stepped tile::Gather (weights).
tile::Gather row_runs_weights(const ConvSpec& c, std::int64_t block_k);

}  // namespace rocke::conv
