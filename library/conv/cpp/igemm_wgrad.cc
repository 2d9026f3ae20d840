// conv_igemm_wgrad, mirroring library/conv/igemm_wgrad.py op for op: the
// weight gradient dw from x and dy as an implicit GEMM per group on the
// matrix cores, from the tile blocks (platform/tile/cpp), unsplit or
// split-K (two-stage into an f32 workspace, or atomic into an f32 dw).
// igemm_wgrad.py's docstring says how rows, columns and the reduction map
// onto the convolution, and each mode's output type.
//
//     conv_igemm_wgrad_<case id>(x, dy, dw | workspace)
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own
// statement, in Python's order.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "library/conv/cpp/common.h"
#include "library/conv/cpp/gather_address.h"
#include "library/conv/cpp/igemm_tiles.h"
#include "library/conv/cpp/spec.h"
#include "library/conv/cpp/wgrad_spec.h"
#include "library/conv/family_names.h"
#include "platform/arch/cpp/arch.h"
#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/gather.h"
#include "platform/tile/cpp/gemm.h"

namespace rocke::conv {
namespace {

using ir::Value;

// The kernel's third argument, by mode (igemm_wgrad.OUTPUT).
const std::map<std::string, std::string>& outputs() {
  static const std::map<std::string, std::string> table = {
      {"none", "dw"}, {"two_stage", "workspace"}, {"atomic", "dw"}};
  return table;
}

// The matrix op's wave size on `arch` (_form); SpecError if the arch lacks the op.
int form_wave(const WgradSpec& spec, std::string_view arch) {
  for (const arch::MatrixOp& op : arch::get(arch).matrix) {
    if (op.op == spec.igemm.op()) return op.wave;
  }
  const std::string field = "WgradSpec.igemm.tile.mma";
  throw family::SpecError(
      "conv.wgrad_spec.WgradSpecError", field, spec.igemm.tile.mma, nullptr,
      errors::worded(field, "a matrix-core shape " + std::string(arch) + " has for " + spec.conv().dtype,
                     spec.igemm.tile.mma, "take " + std::string(arch) + "'s tile from conv.wgrad_spec.TILES"));
}

// Whether every one of `sizes` is `value`.
bool all_equal(const Shape& sizes, std::int64_t value) {
  return std::all_of(sizes.begin(), sizes.end(), [value](std::int64_t v) { return v == value; });
}

// Whether B is x itself, row-major [N x pixels, C] (igemm_wgrad.plain_input): NHWC, a 1x1 filter,
// stride 1, no padding, and C/groups whole 16-byte units.
bool plain_input(const ConvSpec& c) {
  return c.channels_last() && all_equal(c.filter, 1) && all_equal(c.stride, 1) && all_equal(c.pad, 0) &&
         whole_units(c.c_per_group(), c.dtype);
}

// B: x at (column: channel and tap, k: reduction row first + k) (_input_gather).
tile::Gather input_gather(const WgradSpec& spec, Value* group, Value* first) {
  const ConvSpec& c = spec.conv();
  auto address = [&c, group, first](ir::KernelBuilder& b, Value* col, Value* k) -> std::pair<Value*, Value*> {
    Value* row = k;
    if (first != nullptr) row = b.add(first, k);
    const Pixel px = output_pixel(b, c, row);
    return input_address(b, c, group, px, col);
  };
  const bool runs = c.channels_last() && whole_units(c.c_per_group(), c.dtype);
  return tile::Gather{address, runs, runs ? "rows" : "k"};
}

// A in NCHW: dy[n, g*K/g + row, pixel] at (row, k: reduction row first + k) (_dy_gather).
tile::Gather dy_gather(const WgradSpec& spec, Value* group, Value* first) {
  const ConvSpec& c = spec.conv();
  const std::int64_t pixels = product(c.output());
  const std::int64_t kpg = c.k_per_group();
  auto address = [&c, pixels, kpg, group, first](ir::KernelBuilder& b, Value* row,
                                                 Value* k) -> std::pair<Value*, Value*> {
    Value* r = k;
    if (first != nullptr) r = b.add(first, k);
    Value* n = b.udiv(r, pixels);
    Value* p = b.urem(r, pixels);
    Value* channel_first = b.mul(group, kpg);
    Value* channel = b.add(channel_first, row);
    Value* image = b.mul(n, c.k);
    Value* plane = b.add(image, channel);
    Value* base = b.mul(plane, pixels);
    return {b.add(base, p), nullptr};
  };
  return tile::Gather{address, whole_units(pixels, c.dtype)};
}

// (group, first reduction row or nullptr, reduction length, output element offset) of workgroup z (_split).
struct Split {
  Value* group;
  Value* first;
  Value* length;
  Value* offset;
};

Split split_of(ir::KernelBuilder& b, const WgradSpec& spec, Value* z) {
  const ConvSpec& c = spec.conv();
  const auto [m, n, r] = spec.gemm();
  if (spec.split == 1) {
    Value* length = b.const_(r, ir::scalar("i32"));
    Value* offset = b.mul(z, m * n);
    return {z, nullptr, length, offset};
  }
  Value* group = b.urem(z, c.groups);
  Value* part = b.udiv(z, c.groups);
  const std::int64_t step = spec.igemm.tile.block_k;
  const std::int64_t steps = spec.steps();
  Value* first_steps = b.mul(part, steps);
  Value* first_share = b.udiv(first_steps, spec.split);
  Value* first = b.mul(first_share, step);  // WgradSpec.rows
  Value* next = b.add(part, 1);
  Value* end_steps = b.mul(next, steps);
  Value* end_share = b.udiv(end_steps, spec.split);
  Value* end_rows = b.mul(end_share, step);
  Value* end = b.min(end_rows, r);
  Value* offset = b.mul(group, m * n);
  if (spec.mode == "two_stage") {
    Value* slice = b.mul(part, spec.elements());
    offset = b.add(slice, offset);
  }
  Value* length = b.sub(end, first);
  return {group, first, length, offset};
}

// The element of a channels-last tensor (pixels of `channels` each) at which
// this block's operand starts: pixel `first` (null: pixel 0), then `group`
// groups of `width` channels.
Value* slice_origin(ir::KernelBuilder& b, Value* first, std::int64_t channels, Value* group, std::int64_t width) {
  if (first == nullptr) {
    return b.mul(group, width);
  }
  Value* passed = b.mul(first, channels);
  Value* in_group = b.mul(group, width);
  return b.add(passed, in_group);
}

std::unique_ptr<ir::Kernel> build(const family::Case& cs) {
  const WgradSpec spec = WgradSpec::from_json(cs.spec);
  const ConvSpec& c = spec.conv();
  const IgemmSpec& t = spec.igemm;
  const int wave = form_wave(spec, cs.arch);
  const tile::GemmConfig cfg = gemm_config(t);
  ir::KernelBuilder b(std::string(family_names::conv::igemm_wgrad) + "_" + cs.id, cs.arch, {cfg.threads(wave), 1, 1},
                      wave);
  const ir::Type* global = ir::ptr("global");
  const ir::Type* i32 = ir::scalar("i32");
  Value* x = b.arg("x", global);
  Value* dy = b.arg("dy", global);
  Value* out = b.arg(outputs().at(spec.mode), global);
  const ir::Type* elem = ir::scalar(c.dtype);
  const ir::Type* out_elem = ir::scalar(spec.out_dtype());
  const auto [m, n, unused] = spec.gemm();
  Value* z = b.block_id(2);
  const Split s = split_of(b, spec, z);
  Value* mv = b.const_(m, i32);
  Value* nv = b.const_(n, i32);
  std::optional<tile::Operands> ops;
  if (c.channels_last()) {
    Value* rows = slice_origin(b, s.first, c.k, s.group, m);
    Value* a_bytes = b.mul(rows, elem->nbytes());
    Value* a = b.offset(dy, a_bytes);
    if (plain_input(c)) {
      Value* cols = slice_origin(b, s.first, c.c, s.group, n);
      Value* b_bytes = b.mul(cols, elem->nbytes());
      Value* bx = b.offset(x, b_bytes);
      ops.emplace(a, bx, mv, nv, s.length, c.k, c.c, "col", "row");
    } else {
      ops.emplace(a, x, mv, nv, s.length, c.k, 0, "col", "row", std::nullopt, input_gather(spec, s.group, s.first));
    }
  } else {
    ops.emplace(dy, x, mv, nv, s.length, 0, 0, "row", "row", dy_gather(spec, s.group, s.first),
                input_gather(spec, s.group, s.first));
  }
  Value* by = b.block_id(1);
  Value* row0 = b.mul(by, t.tile.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, t.tile.block_n);
  const tile::Accumulators acc = tile::mainloop(b, cfg, *ops, elem, row0, col0);
  Value* dst_bytes = b.mul(s.offset, out_elem->nbytes());
  Value* dst = b.offset(out, dst_bytes);
  const std::vector<tile::Run> runs = acc.runs(b);
  tile::epilogue(b, runs, dst, n, ops->m, ops->n, row0, col0, out_elem,
                 {.atomic = spec.mode == "atomic", .inside = acc.inside, .rows = cfg.tile.block_m});
  return b.finish();
}

const family::Registration kRegistration({
    .name = family_names::conv::igemm_wgrad,
    .build = &build,
    .spec_json = &wgrad_normalised,
});

}  // namespace
}  // namespace rocke::conv
