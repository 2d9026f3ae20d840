// conv_igemm_fwd, mirroring library/conv/igemm_fwd.py op for op: forward
// convolution as an implicit GEMM on the matrix cores, one GEMM per group
// (grid z), from the tile blocks (platform/tile/cpp). igemm_fwd.py's
// docstring says how rows, columns and the reduction map onto the
// convolution. A is the im2col matrix, never written: a tile::Gather
// computes each element's input address, with a mask for the padding.
//
//     conv_igemm_fwd_<case id>(x, w, y, [bias])
//
// or, split S ways (IgemmSpec::split_k > 1), f32 partial sums into the
// workspace, slice s at element s x E in the output's layout:
//
//     conv_igemm_fwd_<case id>(x, w, ws)
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own
// statement, in Python's order.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "library/conv/cpp/common.h"
#include "library/conv/cpp/gather_address.h"
#include "library/conv/cpp/igemm_spec.h"
#include "library/conv/cpp/igemm_tiles.h"
#include "library/conv/cpp/row_runs.h"
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

// The im2col matrix of `group` as a tile::Gather over the input (_gather);
// with `k_begin` (split-K), its columns start at that k of the reduction.
tile::Gather gather(const IgemmSpec& spec, Value* group, Value* k_begin) {
  const ConvSpec& c = spec.conv;
  auto address = [&c, group, k_begin](ir::KernelBuilder& b, Value* row, Value* k) -> std::pair<Value*, Value*> {
    const Pixel px = output_pixel(b, c, row);
    if (k_begin != nullptr) k = b.add(k, k_begin);
    return input_address(b, c, group, px, k);
  };
  const bool runs = c.channels_last() && whole_units(c.c_per_group(), c.dtype);
  if (!stepped(c, spec.tile.block_k)) return tile::Gather{address, runs};
  auto offset = [&c, group, k_begin](ir::KernelBuilder& b, Value* row, Value* k0, Value* k) -> Value* {
    if (k_begin != nullptr) k0 = b.add(k0, k_begin);
    return stepped_offset(b, c, group, row, k0, k);
  };
  return tile::Gather{address, runs, "k", offset, product(c.input_shape()) * ir::scalar(c.dtype)->nbytes()};
}

// B, the group's filters (each a row of k weights, its ld), as a stepped
// tile::Gather (_weights, which says why): loads through an unchecked buffer.
tile::Gather weights(const IgemmSpec& spec, const ir::Type* elem) {
  const std::int64_t k = spec.gemm()[2];
  auto address = [k](ir::KernelBuilder& b, Value* row, Value* kk) -> std::pair<Value*, Value*> {
    Value* start = b.mul(row, k);
    return {b.add(start, kk), nullptr};
  };
  auto offset = [k, elem](ir::KernelBuilder& b, Value* row, Value* k0, Value* kk) -> Value* {
    Value* start = b.mul(row, k);
    Value* index = b.add(start, kk);
    Value* lane = b.mul(index, elem->nbytes());
    Value* step = b.mul(k0, elem->nbytes());
    return b.add(lane, step);
  };
  return tile::Gather{address, true, "k", offset, tile::kUnchecked};
}

// Channels-first output: y[n, g*K/g + col, pixel] as `elem`, element by element (_store_nchw).
void store_nchw(ir::KernelBuilder& b, const IgemmSpec& spec, const tile::Accumulators& acc, Value* y, Value* group,
                Value* row0, Value* col0, const ir::Type* elem, Value* bias = nullptr, Value* residual = nullptr,
                bool partial = false) {
  const ConvSpec& c = spec.conv;
  const auto [m, kpg, unused] = spec.gemm();
  const std::int64_t pixels = product(c.output());
  const std::string activation = partial ? "none" : c.activation;
  const double scale = partial ? 1.0 : c.scale_value();
  acc.each_element(b, [&](const tile::Run& e) {
    Value* gr = b.add(row0, e.row);
    Value* gc = b.add(col0, e.col);
    Value* in_rows = b.cmp("lt", gr, m);
    Value* in_cols = b.cmp("lt", gc, kpg);
    Value* inside = b.and_(in_rows, in_cols);
    b.if_(inside, {}, [&] {
      Value* first = b.mul(group, kpg);
      Value* channel = b.add(first, gc);
      auto index = [&] {
        Value* image = b.udiv(gr, pixels);
        Value* image_k = b.mul(image, c.k);
        Value* plane = b.add(image_k, channel);
        Value* base = b.mul(plane, pixels);
        Value* pixel = b.urem(gr, pixels);
        return b.add(base, pixel);
      };
      tile::Addend add_bias, add_residual;
      if (bias != nullptr) {
        add_bias = [&](int) {
          Value* at = b.mul(channel, 4);
          Value* p = b.offset(bias, at);
          return b.load(p, ir::scalar("f32"));
        };
      }
      if (residual != nullptr) {  // the output's layout: the element stored below
        add_residual = [&](int) {
          Value* bytes = b.mul(index(), elem->nbytes());
          Value* p = b.offset(residual, bytes);
          Value* loaded = b.load(p, elem);
          return b.convert(loaded, ir::scalar("f32"));
        };
      }
      Value* value = tile::finish(b, {e.values[0]}, activation, add_bias, add_residual, c.residual_at(), scale)[0];
      Value* bytes = b.mul(index(), elem->nbytes());
      Value* p = b.offset(y, bytes);
      Value* out = b.convert(value, elem);
      b.store(p, out);
    });
  });
}

// This workgroup's split: grid z = split x groups + group, its slice of the
// reduction whole k steps (IgemmSpec.k_slices) (_split).
struct Split {
  Value* split;
  Value* group;
  Value* k_begin;
  Value* k_len;
};

Split split_of(ir::KernelBuilder& b, const IgemmSpec& spec) {
  const std::int64_t k = spec.gemm()[2];
  const std::int64_t steps = spec.k_steps();
  const std::int64_t parts = spec.split_k;
  Value* z = b.block_id(2);
  Value* split = b.udiv(z, spec.conv.groups);
  Value* group = b.urem(z, spec.conv.groups);
  Value* first_steps = b.mul(split, steps);
  Value* first = b.udiv(first_steps, parts);
  Value* k_begin = b.mul(first, spec.tile.block_k);
  Value* next = b.add(split, 1);
  Value* last_steps = b.mul(next, steps);
  Value* last = b.udiv(last_steps, parts);
  Value* last_k = b.mul(last, spec.tile.block_k);
  Value* k_end = b.min(last_k, k);
  Value* k_len = b.sub(k_end, k_begin);
  return {split, group, k_begin, k_len};
}

// This split's f32 partial sums into workspace slice `split` (element offset
// split x E), in the output's layout, unconverted, no epilogue (_store_partial).
void store_partial(ir::KernelBuilder& b, const IgemmSpec& spec, const tile::Accumulators& acc, Value* ws,
                   const Split& sp, const tile::Operands& ops, Value* row0, Value* col0) {
  const ConvSpec& c = spec.conv;
  const std::int64_t n = spec.gemm()[1];
  const std::int64_t elements = product(c.output_shape());
  const ir::Type* f32 = ir::scalar("f32");
  if (c.channels_last()) {
    Value* slice = b.mul(sp.split, elements);
    Value* columns = b.mul(sp.group, n);
    Value* first = b.add(slice, columns);
    Value* bytes = b.mul(first, 4);
    Value* out = b.offset(ws, bytes);
    const std::vector<tile::Run> runs = acc.runs(b);
    tile::epilogue(b, runs, out, c.k, ops.m, ops.n, row0, col0, f32,
                   {.inside = acc.inside, .rows = static_cast<int>(spec.tile.block_m)});
  } else {
    Value* slice = b.mul(sp.split, elements);
    Value* bytes = b.mul(slice, 4);
    Value* out = b.offset(ws, bytes);
    store_nchw(b, spec, acc, out, sp.group, row0, col0, f32, nullptr, nullptr, true);
  }
}

std::unique_ptr<ir::Kernel> build(const family::Case& cs) {
  const IgemmSpec spec = IgemmSpec::from_json(cs.spec);
  const ConvSpec& c = spec.conv;
  const int wave = form_wave(spec, cs.arch);
  const tile::GemmConfig cfg = gemm_config(spec);
  ir::KernelBuilder b(std::string(family_names::conv::igemm_fwd) + "_" + cs.id, cs.arch, {cfg.threads(wave), 1, 1},
                      wave);
  const ir::Type* global = ir::ptr("global");
  const ir::Type* i32 = ir::scalar("i32");
  Value* x = b.arg("x", global);
  Value* w = b.arg("w", global);
  const bool split = spec.split_k > 1;
  Value* y = b.arg(split ? "ws" : "y", global);
  Value* bias = c.bias && !split ? b.arg("bias", global) : nullptr;
  Value* residual = c.residual != "none" && !split ? b.arg("residual", global) : nullptr;
  const ir::Type* elem = ir::scalar(c.dtype);
  const auto [m, n, k] = spec.gemm();
  Split sp{};
  Value* w_group;
  if (!split) {
    sp.group = b.block_id(2);
    // This group's filters: K/g rows of k weights each.
    Value* filters = b.mul(sp.group, n * k);
    Value* w_bytes = b.mul(filters, elem->nbytes());
    w_group = b.offset(w, w_bytes);
  } else {
    sp = split_of(b, spec);
    // This group's filters from the slice's first k on (B keeps ld = k).
    Value* filters = b.mul(sp.group, n * k);
    Value* first = b.add(filters, sp.k_begin);
    Value* w_bytes = b.mul(first, elem->nbytes());
    w_group = b.offset(w, w_bytes);
  }
  Value* group = sp.group;
  Value* mv = b.const_(m, i32);
  Value* nv = b.const_(n, i32);
  Value* kv = split ? sp.k_len : b.const_(k, i32);
  tile::Gather a_gather =
      spec.row_runs ? row_runs_im2col(c, spec.tile.block_k, group) : gather(spec, group, sp.k_begin);
  tile::Gather b_gather = spec.row_runs ? row_runs_weights(c, spec.tile.block_k) : weights(spec, elem);
  const tile::Operands ops(x, w_group, mv, nv, kv, 0, k, "row", "col", a_gather, b_gather);
  Value* by = b.block_id(1);
  Value* row0 = b.mul(by, spec.tile.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, spec.tile.block_n);
  const tile::Accumulators acc = tile::mainloop(b, cfg, ops, elem, row0, col0);
  if (split) {
    store_partial(b, spec, acc, y, sp, ops, row0, col0);
    return b.finish();
  }
  if (c.channels_last()) {
    Value* first = b.mul(group, n);
    Value* y_bytes = b.mul(first, elem->nbytes());
    Value* y_group = b.offset(y, y_bytes);
    Value* bias_group = nullptr;
    if (bias != nullptr) {
      Value* bias_first = b.mul(group, n);
      Value* bias_bytes = b.mul(bias_first, 4);
      bias_group = b.offset(bias, bias_bytes);
    }
    Value* residual_group = nullptr;
    if (residual != nullptr) {
      Value* residual_first = b.mul(group, n);
      Value* residual_bytes = b.mul(residual_first, elem->nbytes());
      residual_group = b.offset(residual, residual_bytes);
    }
    const std::vector<tile::Run> runs = acc.runs(b);
    tile::epilogue(b, runs, y_group, c.k, ops.m, ops.n, row0, col0, elem,
                   {.bias = bias_group,
                    .activation = c.activation,
                    .residual = residual_group,
                    .residual_at = c.residual_at(),
                    .scale = c.scale_value(),
                    .inside = acc.inside,
                    .rows = cfg.tile.block_m});
  } else {
    store_nchw(b, spec, acc, y, group, row0, col0, elem, bias, residual);
  }
  return b.finish();
}

const family::Registration kRegistration({
    .name = family_names::conv::igemm_fwd,
    .build = &build,
    .spec_json = &igemm_normalised,
});

}  // namespace
}  // namespace rocke::conv
