// conv_igemm_dgrad, mirroring library/conv/igemm_dgrad.py op for op: the data
// gradient (dx from dy and w) as an implicit GEMM on the matrix cores, one
// GEMM per group (grid z), from the tile blocks (platform/tile/cpp).
// igemm_dgrad.py's docstring says how rows, columns and the reduction map
// onto the convolution, why the reduction is tap-major, and how stride > 1
// is masked in dy's gather. A (dy) and B (w) are both tile::Gathers.
//
//     conv_igemm_dgrad_<case id>(dy, w, dx)
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own
// statement, in Python's order.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "library/conv/cpp/common.h"
#include "library/conv/cpp/gather_address.h"
#include "library/conv/cpp/igemm_spec.h"
#include "library/conv/cpp/igemm_tiles.h"
#include "library/conv/cpp/spec.h"
#include "library/conv/family_names.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/gather.h"
#include "platform/tile/cpp/gemm.h"

namespace rocke::conv {
namespace {

using ir::Value;

// gemm: (M, N, K) of each group's GEMM: input pixels, channels per group, K/groups x taps.
std::array<std::int64_t, 3> dgrad_gemm(const IgemmSpec& spec) {
  const ConvSpec& c = spec.conv;
  return {c.n * product(c.spatial), c.c_per_group(), c.k_per_group() * product(c.filter)};
}

// _check: a gradient has no bias or activation.
void check(const IgemmSpec& spec) {
  if (spec.conv.bias_relu) {
    throw IgemmSpecError("ConvSpec.bias_relu", true,
                         "false (conv_igemm_dgrad: a data gradient has no bias or activation)", json::Array{false},
                         "conv_igemm_fwd takes bias_relu");
  }
}

// A: the group's dy[n, o, k] for input pixel `row` and reduction r = (tap, k),
// zero where no output pixel reaches the input pixel through the tap (_dy_gather).
tile::Gather dy_gather(const IgemmSpec& spec) {
  const ConvSpec& c = spec.conv;
  const std::int64_t kpg = c.k_per_group();
  auto address = [&c, kpg](ir::KernelBuilder& b, Value* row, Value* r) -> std::pair<Value*, Value*> {
    Shape sizes = {c.n};
    sizes.insert(sizes.end(), c.spatial.begin(), c.spatial.end());
    const std::vector<Value*> parts = unflatten(b, row, sizes);
    Value* n = parts[0];
    const std::vector<Value*> i(parts.begin() + 1, parts.end());
    Value* tap = b.div(r, kpg);
    Value* k = b.rem(r, kpg);
    const std::vector<Value*> t = unflatten(b, tap, c.filter);
    const Shape out = c.output();
    // Every miss is an integer, non-zero where (pixel, tap) reaches no output:
    // one compare per element at the end (igemm_dgrad.py says why).
    std::vector<Value*> pos;
    Value* miss = nullptr;
    for (std::size_t d = 0; d < c.spatial.size(); ++d) {
      Value* padded = b.add(i[d], c.pad[d]);
      Value* dilated = b.mul(t[d], c.dilation[d]);
      Value* o = b.sub(padded, dilated);  // o * stride, where it is an output pixel
      Value* between = nullptr;
      if (c.stride[d] > 1) {
        between = b.rem(o, c.stride[d]);  // non-zero: between two output pixels (or before the first)
        o = b.div(o, c.stride[d]);
      }
      Value* low = b.max(o, 0);
      Value* clamped = b.min(low, out[d] - 1);
      Value* off = b.sub(o, clamped);  // non-zero: outside the output
      Value* part = between == nullptr ? off : b.or_(off, between);
      miss = miss == nullptr ? part : b.or_(miss, part);
      pos.push_back(o);
    }
    Value* valid = b.cmp("eq", miss, 0);
    return {layout_index(b, c, n, pos, k, c.output_shape()), valid};
  };
  return tile::Gather{address, c.channels_last() && whole_units(kpg, c.dtype)};
}

// B: the group's w[k, tap, col] (NHWC) or w[k, col, tap] (NCHW), one element
// at a time (_w_gather).
tile::Gather w_gather(const IgemmSpec& spec) {
  const ConvSpec& c = spec.conv;
  const std::int64_t kpg = c.k_per_group(), cpg = c.c_per_group(), taps = product(c.filter);
  const bool last = c.channels_last();
  auto address = [kpg, cpg, taps, last](ir::KernelBuilder& b, Value* col, Value* r) -> std::pair<Value*, Value*> {
    Value* tap = b.div(r, kpg);
    Value* k = b.rem(r, kpg);
    if (last) {
      Value* rows = b.mul(k, taps);
      Value* row = b.add(rows, tap);
      Value* base = b.mul(row, cpg);
      return {b.add(base, col), nullptr};
    }
    Value* rows = b.mul(k, cpg);
    Value* row = b.add(rows, col);
    Value* base = b.mul(row, taps);
    return {b.add(base, tap), nullptr};
  };
  return tile::Gather{address, false};
}

// Channels-first dx[n, g C/g + col, pixel], element by element (_store_nchw).
void store_nchw(ir::KernelBuilder& b, const IgemmSpec& spec, const tile::Accumulators& acc, Value* dx, Value* group,
                Value* row0, Value* col0) {
  const ConvSpec& c = spec.conv;
  const auto [m, cpg, unused] = dgrad_gemm(spec);
  const std::int64_t pixels = product(c.spatial);
  const ir::Type* elem = ir::scalar(c.dtype);
  acc.each_element(b, [&](const tile::Run& e) {
    Value* gr = b.add(row0, e.row);
    Value* gc = b.add(col0, e.col);
    Value* in_rows = b.cmp("lt", gr, m);
    Value* in_cols = b.cmp("lt", gc, cpg);
    Value* inside = b.and_(in_rows, in_cols);
    b.if_(inside, {}, [&] {
      Value* first = b.mul(group, cpg);
      Value* channel = b.add(first, gc);
      Value* image = b.div(gr, pixels);
      Value* image_c = b.mul(image, c.c);
      Value* plane = b.add(image_c, channel);
      Value* base = b.mul(plane, pixels);
      Value* pixel = b.rem(gr, pixels);
      Value* index = b.add(base, pixel);
      Value* bytes = b.mul(index, elem->nbytes());
      Value* p = b.offset(dx, bytes);
      Value* out = b.convert(e.values[0], elem);
      b.store(p, out);
    });
  });
}

std::unique_ptr<ir::Kernel> build(const family::Case& cs) {
  const IgemmSpec spec = IgemmSpec::from_json(cs.spec);
  const ConvSpec& c = spec.conv;
  check(spec);
  const int wave = form_wave(spec, cs.arch);
  const tile::GemmConfig cfg = gemm_config(spec);
  ir::KernelBuilder b(std::string(family_names::conv::igemm_dgrad) + "_" + cs.id, cs.arch, {cfg.threads(wave), 1, 1},
                      wave);
  const ir::Type* global = ir::ptr("global");
  const ir::Type* i32 = ir::scalar("i32");
  Value* dy = b.arg("dy", global);
  Value* w = b.arg("w", global);
  Value* dx = b.arg("dx", global);
  const ir::Type* elem = ir::scalar(c.dtype);
  const auto [m, n, k] = dgrad_gemm(spec);
  Value* group = b.block_id(2);
  // The group's first dy channel and first filter (K is w's outermost dimension).
  const std::int64_t channel_stride = c.channels_last() ? 1 : product(c.output());
  Value* dy_first = b.mul(group, c.k_per_group() * channel_stride);
  Value* dy_bytes = b.mul(dy_first, elem->nbytes());
  Value* dy_group = b.offset(dy, dy_bytes);
  Value* w_first = b.mul(group, c.k_per_group() * n * product(c.filter));
  Value* w_bytes = b.mul(w_first, elem->nbytes());
  Value* w_group = b.offset(w, w_bytes);
  Value* mv = b.const_(m, i32);
  Value* nv = b.const_(n, i32);
  Value* kv = b.const_(k, i32);
  const tile::Operands ops(dy_group, w_group, mv, nv, kv, 0, 0, "row", "row", dy_gather(spec), w_gather(spec));
  Value* by = b.block_id(1);
  Value* row0 = b.mul(by, spec.tile.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, spec.tile.block_n);
  const tile::Accumulators acc = tile::mainloop(b, cfg, ops, elem, row0, col0);
  if (c.channels_last()) {
    Value* first = b.mul(group, n);
    Value* dx_bytes = b.mul(first, elem->nbytes());
    Value* dx_group = b.offset(dx, dx_bytes);
    const std::vector<tile::Run> runs = acc.runs(b);
    tile::epilogue(b, runs, dx_group, c.c, ops.m, ops.n, row0, col0, elem,
                   {.inside = acc.inside, .rows = cfg.tile.block_m});
  } else {
    store_nchw(b, spec, acc, dx, group, row0, col0);
  }
  return b.finish();
}

const family::Registration kRegistration({
    .name = family_names::conv::igemm_dgrad,
    .build = &build,
    .spec_json = &igemm_normalised,
});

}  // namespace
}  // namespace rocke::conv
