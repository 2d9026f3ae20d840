// Input addresses of the im2col matrix for the implicit-GEMM families'
// tile::Gather callbacks, mirroring library/conv/gather_address.py op for op
// (its docstring says who asks what). conv_igemm_fwd gathers the im2col
// matrix as A, conv_igemm_wgrad as B; each computes the output pixel its
// own way and passes it here.
//
// ORDER (platform/ir/cpp/builder.h): every builder call that makes an op is
// its own statement, in the order Python evaluates the expression it mirrors.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "library/conv/cpp/spec.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/core.h"

namespace rocke::conv {

// What one of tile::GatherCopy's vector loads takes (gather_address.UNIT_BYTES).
inline constexpr int kUnitBytes = 16;

// Whether `count` consecutive elements of `dtype` are whole 16-byte units
// (whole_units): a gather runs along them with one vector load per unit.
bool whole_units(std::int64_t count, const std::string& dtype);

// An output pixel: image n and output position o, one value per spatial dimension.
struct Pixel {
  ir::Value* n;
  std::vector<ir::Value*> o;
};

// The pixel of im2col row `row`: N x output spatial, row-major (output_pixel).
Pixel output_pixel(ir::KernelBuilder& b, const ConvSpec& c, ir::Value* row);

// (element index in x, i1 validity) of pixel `px` and im2col column `col` of
// `group`: tap-major, channel fastest, in NHWC; channel-major in NCHW. The
// validity is false in the padding (input_address).
std::pair<ir::Value*, ir::Value*> input_address(ir::KernelBuilder& b, const ConvSpec& c, ir::Value* group,
                                                const Pixel& px, ir::Value* col);

// A lane's padding mask is one i32, a bit per tap (gather_address.MAX_STEPPED_TAPS).
inline constexpr std::int64_t kMaxSteppedTaps = 31;

// Whether the im2col matrix can be gathered by stepped_offset with k steps
// of `block_k` (stepped): NHWC in whole units, every k step inside one tap.
bool stepped(const ConvSpec& c, std::int64_t block_k);

// The spatial dims in which some tap of some output position falls in the padding (padded_dims).
std::vector<int> padded_dims(const ConvSpec& c);

// A lane's i32 with bit t set where tap t over the filter `extents` (row-major)
// of its pixel (first input position `first`) falls in the padding of one of
// `dims`: every tap (c.filter), or every filter row (row_runs) (padding_mask).
ir::Value* padding_mask(ir::KernelBuilder& b, const ConvSpec& c, const std::vector<ir::Value*>& first,
                        const std::vector<int>& dims, const Shape& extents);

// x / d of an IR value 0 <= x < bound, without a division where it can (floor_div, which says how).
ir::Value* floor_div(ir::KernelBuilder& b, ir::Value* x, std::int64_t d, std::int64_t bound);

// Byte offset in x of im2col unit (row, k0 + k) of `group`, with
// tile::kPaddingBit set where it is padding (stepped_offset, which says how).
ir::Value* stepped_offset(ir::KernelBuilder& b, const ConvSpec& c, ir::Value* group, ir::Value* row, ir::Value* k0,
                          ir::Value* k);

}  // namespace rocke::conv
