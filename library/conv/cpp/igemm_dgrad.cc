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
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
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

// IgemmSpec.dgrad_one_phase: a 1x1 filter of stride > 1 without padding,
// NHWC with C/groups in whole units, reaches one stride phase of the input.
bool one_phase(const IgemmSpec& spec) {
  const ConvSpec& c = spec.conv;
  return c.channels_last() && product(c.filter) == 1 && std::ranges::max(c.stride) > 1 &&
         std::ranges::all_of(c.pad, [](std::int64_t p) { return p == 0; }) && whole_units(c.c_per_group(), c.dtype);
}

// IgemmSpec.dgrad_gemm: (M, N, K) of each group's GEMM: input pixels (output
// pixels for one_phase), channels per group, K/groups x taps.
std::array<std::int64_t, 3> dgrad_gemm(const IgemmSpec& spec) {
  const ConvSpec& c = spec.conv;
  const std::int64_t pixels = product(one_phase(spec) ? c.output() : c.spatial);
  return {c.n * pixels, c.c_per_group(), c.k_per_group() * product(c.filter)};
}

// _check: a gradient has no epilogue.
void check(const IgemmSpec& spec) {
  if (auto found = spec.conv.epilogue_field()) {
    const auto& [field, value, fallback] = *found;
    throw IgemmSpecError(
        "ConvSpec." + field, value,
        json::canonical(fallback) + " (conv_igemm_dgrad: a data gradient has no bias, activation, residual or scale)",
        json::Array{fallback}, "conv_igemm_fwd takes " + field);
  }
}

// _steps_in_one_tap: every k step of the (tap-major) reduction lies inside one filter tap.
bool steps_in_one_tap(const IgemmSpec& spec) { return spec.conv.k_per_group() % spec.tile.block_k == 0; }

// The spatial dims in which some (input pixel, tap) reaches no output pixel (_missed_dims).
std::vector<int> missed_dims(const ConvSpec& c) {
  const Shape out = c.output();
  std::vector<int> dims;
  for (int d = 0; d < c.dims(); ++d) {
    if (c.stride[d] > 1 || c.pad[d] < (c.filter[d] - 1) * c.dilation[d] ||
        c.spatial[d] - 1 + c.pad[d] > (out[d] - 1) * c.stride[d]) {
      dims.push_back(d);
    }
  }
  return dims;
}

// A lane's i32 with bit `tap` set where input pixel (i + pad = `shifted`)
// reaches no output pixel through that tap in one of `dims` (_miss_mask).
Value* miss_mask(ir::KernelBuilder& b, const ConvSpec& c, const std::vector<Value*>& shifted,
                 const std::vector<int>& dims) {
  const ir::Type* i32 = ir::scalar("i32");
  const Shape output = c.output();
  std::map<std::pair<int, std::int64_t>, Value*> missed;
  Value* mask = nullptr;
  const std::int64_t taps = product(c.filter);
  for (std::int64_t tap = 0; tap < taps; ++tap) {
    // The tap's coordinates, row-major (itertools.product's order).
    std::vector<std::int64_t> ts(c.filter.size());
    std::int64_t rest = tap;
    for (std::size_t d = c.filter.size(); d-- > 0;) {
      ts[d] = rest % c.filter[d];
      rest /= c.filter[d];
    }
    Value* out = nullptr;
    for (const int d : dims) {
      auto [at, fresh] = missed.try_emplace({d, ts[d]}, nullptr);
      if (fresh) {
        Value* x = b.sub(shifted[d], ts[d] * c.dilation[d]);  // o x stride
        Value* before = b.cmp("lt", x, 0);
        Value* past = b.cmp("gt", x, (output[d] - 1) * c.stride[d]);
        Value* miss = b.or_(before, past);
        if (c.stride[d] > 1) {  // unsigned: a negative x is a miss already
          Value* between = b.urem(x, c.stride[d]);
          Value* off = b.cmp("ne", between, 0);
          miss = b.or_(miss, off);
        }
        at->second = miss;
      }
      out = out == nullptr ? at->second : b.or_(out, at->second);
    }
    Value* one = b.const_(std::int64_t{1} << tap, i32);
    Value* none = b.const_(0, i32);
    Value* bit = b.select(out, one, none);
    mask = mask == nullptr ? bit : b.or_(mask, bit);
  }
  return mask;
}

// A's stepped offset: the byte offset in dy of unit (row, k0 + k), with
// tile::kPaddingBit set where no output pixel is reached (_dy_stepped, which says how).
Value* dy_stepped(ir::KernelBuilder& b, const ConvSpec& c, Value* row, Value* k0, Value* k) {
  const std::int64_t kpg = c.k_per_group();
  const int nbytes = ir::scalar(c.dtype)->nbytes();
  const std::int64_t taps = product(c.filter);
  const Shape shape = c.output_shape();
  const std::vector<int> dims = missed_dims(c);
  Shape sizes = {c.n};
  sizes.insert(sizes.end(), c.spatial.begin(), c.spatial.end());
  const std::vector<Value*> parts = unflatten(b, row, sizes);
  Value* n = parts[0];
  std::vector<Value*> shifted;
  for (std::size_t d = 0; d < c.spatial.size(); ++d) shifted.push_back(b.add(parts[d + 1], c.pad[d]));
  std::vector<Value*> q;
  for (std::size_t d = 0; d < c.spatial.size(); ++d) {
    q.push_back(c.stride[d] == 1 ? shifted[d] : floor_div(b, shifted[d], c.stride[d], c.spatial[d] + c.pad[d]));
  }
  Value* lane = layout_index(b, c, n, q, k, shape);
  std::vector<std::size_t> moving;
  for (std::size_t d = 0; d < c.filter.size(); ++d) {
    if (c.filter[d] > 1) moving.push_back(d);
  }
  Value* tap = !moving.empty() || !dims.empty() ? floor_div(b, k0, kpg, kpg * taps) : nullptr;
  Value* step = k0;
  for (const std::size_t d : moving) {
    const auto at = static_cast<std::ptrdiff_t>(d);
    const std::int64_t inner = product(Shape(c.filter.begin() + at + 1, c.filter.end()));
    const std::int64_t f = c.filter[d], stride = c.stride[d], dil = c.dilation[d];
    const std::int64_t rows = product(Shape(shape.begin() + at + 2, shape.end()));  // dy elements per output position
    Value* t = floor_div(b, tap, inner, taps);
    if (d > 0) {
      Value* whole = floor_div(b, t, f, (taps + inner - 1) / inner);
      Value* wrapped = b.mul(whole, f);
      t = b.sub(t, wrapped);
    }
    if (dil % stride == 0) {
      Value* moved = b.mul(t, -(dil / stride * rows + kpg * inner));
      step = b.add(step, moved);
    } else {
      Value* dilated = b.mul(t, dil);
      Value* back = floor_div(b, dilated, stride, (f - 1) * dil + 1);
      Value* moved = b.mul(t, -kpg * inner);
      Value* ahead = b.add(step, moved);
      Value* rows_back = b.mul(back, rows);
      step = b.sub(ahead, rows_back);
    }
  }
  Value* lane_bytes = b.mul(lane, nbytes);
  Value* step_bytes = b.mul(step, nbytes);
  Value* offset = b.add(lane_bytes, step_bytes);
  if (dims.empty()) return offset;
  Value* mask = miss_mask(b, c, shifted, dims);
  Value* shifted_mask = b.shr(mask, tap);
  Value* bit = b.and_(shifted_mask, 1);
  Value* flag = b.shl(bit, tile::kPaddingBit);
  return b.or_(offset, flag);
}

// A: the group's dy[n, o, k] for input pixel `row` and reduction r = (tap, k),
// zero where no output pixel reaches the input pixel through the tap; stepped
// where its units are vector loads, each k step in one tap and the taps fit a
// lane's mask (_dy_gather).
tile::Gather dy_gather(const IgemmSpec& spec) {
  const ConvSpec& c = spec.conv;
  const std::int64_t kpg = c.k_per_group();
  auto address = [&c, kpg](ir::KernelBuilder& b, Value* row, Value* r) -> std::pair<Value*, Value*> {
    Shape sizes = {c.n};
    sizes.insert(sizes.end(), c.spatial.begin(), c.spatial.end());
    const std::vector<Value*> parts = unflatten(b, row, sizes);
    Value* n = parts[0];
    const std::vector<Value*> i(parts.begin() + 1, parts.end());
    Value* tap = b.udiv(r, kpg);
    Value* k = b.urem(r, kpg);
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
      if (c.stride[d] > 1) {               // unsigned: igemm_dgrad.py says why a negative o still misses
        between = b.urem(o, c.stride[d]);  // non-zero: between two output pixels (or before the first)
        o = b.udiv(o, c.stride[d]);
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
  const bool runs = c.channels_last() && whole_units(kpg, c.dtype);
  if (!runs || !steps_in_one_tap(spec) || product(c.filter) > kMaxSteppedTaps) return tile::Gather{address, runs};
  auto stepped = [&c](ir::KernelBuilder& b, Value* row, Value* k0, Value* k) -> Value* {
    return dy_stepped(b, c, row, k0, k);
  };
  const std::int64_t extent = product(c.output_shape()) * ir::scalar(c.dtype)->nbytes();
  return tile::Gather{address, true, "k", stepped, extent};
}

// B: the group's w[k, tap, col] (NHWC) or w[k, col, tap] (NCHW), or none for
// a 1x1 filter, whose w is B itself ([K/g, C/g] row-major); vector loads
// along the columns where C/groups is whole units (NHWC), stepped where each
// k step lies in one tap; else one element at a time (_w_gather).
std::optional<tile::Gather> w_gather(const IgemmSpec& spec) {
  const ConvSpec& c = spec.conv;
  const std::int64_t kpg = c.k_per_group(), cpg = c.c_per_group(), taps = product(c.filter);
  const int nbytes = ir::scalar(c.dtype)->nbytes();
  const bool last = c.channels_last();
  if (taps == 1) return std::nullopt;
  auto address = [kpg, cpg, taps, last](ir::KernelBuilder& b, Value* col, Value* r) -> std::pair<Value*, Value*> {
    Value* tap = b.udiv(r, kpg);
    Value* k = b.urem(r, kpg);
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
  if (!(last && whole_units(cpg, c.dtype))) return tile::Gather{address, false};
  if (!steps_in_one_tap(spec)) return tile::Gather{address, true, "rows"};
  auto stepped = [kpg, cpg, taps, nbytes](ir::KernelBuilder& b, Value* col, Value* k0, Value* k) -> Value* {
    // w[f + k, tap, col] with k0 = tap x K/g + f (_w_gather's stepped says how).
    Value* filters = b.mul(k, taps * cpg);
    Value* lane = b.add(filters, col);
    Value* step = b.mul(k0, taps * cpg);
    if (taps > 1) {
      Value* tap = floor_div(b, k0, kpg, kpg * taps);
      Value* back = b.mul(tap, (kpg * taps - 1) * cpg);
      step = b.sub(step, back);
    }
    Value* lane_bytes = b.mul(lane, nbytes);
    Value* step_bytes = b.mul(step, nbytes);
    return b.add(lane_bytes, step_bytes);
  };
  return tile::Gather{address, true, "rows", stepped, tile::kUnchecked};
}

// The stride-1 problem whose GEMM a one-phase spec computes: dy's pixels as
// its input (_phase_problem).
IgemmSpec phase_problem(const IgemmSpec& spec) {
  IgemmSpec problem = spec;
  problem.conv.spatial = spec.conv.output();
  problem.conv.stride = Shape(spec.conv.stride.size(), 1);
  return problem;
}

// A one-phase spec's dx, NHWC: row o is input pixel o x stride, and zeros
// over the rest of its stride cell inside the input, without branches: an
// element outside is stored past the buffer's range (_store_phase says why).
void store_phase(ir::KernelBuilder& b, const IgemmSpec& spec, const tile::Accumulators& acc, Value* dx, Value* group,
                 Value* row0, Value* col0) {
  const ConvSpec& c = spec.conv;
  const auto [m, cpg, unused] = dgrad_gemm(spec);
  const ir::Type* elem = ir::scalar(c.dtype);
  const Shape out_shape = c.output();
  Shape sizes = {c.n};
  sizes.insert(sizes.end(), out_shape.begin(), out_shape.end());
  const std::int64_t nbytes = product(c.input_shape()) * elem->nbytes();
  Value* dst = b.buffer_rsrc(dx, nbytes);
  Value* first = b.mul(group, cpg);
  Value* zero = b.const_(0.0, elem);
  const std::vector<tile::Run> runs = acc.runs(b);
  for (const tile::Run& run : runs) {
    Value* gr = b.add(row0, run.row);
    Value* gc = b.add(col0, run.col);
    Value* channel = b.add(first, gc);
    Value* in_rows = b.cmp("lt", gr, m);
    Value* in_cols = b.cmp("lt", gc, cpg);
    Value* inside = b.and_(in_rows, in_cols);
    const std::vector<Value*> parts = unflatten(b, gr, sizes);
    Value* n = parts[0];
    std::vector<Value*> base;
    for (std::size_t d = 0; d < c.stride.size(); ++d) {
      base.push_back(c.stride[d] == 1 ? parts[d + 1] : b.mul(parts[d + 1], c.stride[d]));
    }
    std::vector<Value*> out;
    for (Value* v : run.values) out.push_back(b.convert(v, elem));
    // Every cell offset, row-major (itertools.product's order).
    const std::int64_t cells = product(c.stride);
    for (std::int64_t at = 0; at < cells; ++at) {
      Shape cell(c.stride.size());
      std::int64_t rest = at;
      for (std::size_t d = c.stride.size(); d-- > 0;) {
        cell[d] = rest % c.stride[d];
        rest /= c.stride[d];
      }
      std::vector<Value*> pos;
      for (std::size_t d = 0; d < cell.size(); ++d) pos.push_back(cell[d] == 0 ? base[d] : b.add(base[d], cell[d]));
      Value* ok = inside;
      for (std::size_t d = 0; d < cell.size(); ++d) {
        // Only a cell's far pixels can lie past the input's end.
        if ((out_shape[d] - 1) * c.stride[d] + cell[d] >= c.spatial[d]) {
          Value* before_end = b.cmp("lt", pos[d], c.spatial[d]);
          ok = b.and_(ok, before_end);
        }
      }
      Value* index = layout_index(b, c, n, pos, channel, c.input_shape());
      Value* bytes = b.mul(index, elem->nbytes());
      for (std::size_t j = 0; j < out.size(); ++j) {
        Value* offset = j == 0 ? bytes : b.add(bytes, static_cast<std::int64_t>(j) * elem->nbytes());
        Value* where = b.select(ok, offset, nbytes);
        b.buffer_store(dst, where, at == 0 ? out[j] : zero);
      }
    }
  }
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
      Value* image = b.udiv(gr, pixels);
      Value* image_c = b.mul(image, c.c);
      Value* plane = b.add(image_c, channel);
      Value* base = b.mul(plane, pixels);
      Value* pixel = b.urem(gr, pixels);
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
  // The gathers read `problem`, which outlives the main loop that calls them.
  const IgemmSpec problem = one_phase(spec) ? phase_problem(spec) : spec;
  // B's ld where it is not gathered (a 1x1 filter's w).
  const tile::Operands ops(dy_group, w_group, mv, nv, kv, 0, n, "row", "row", dy_gather(problem), w_gather(problem));
  Value* by = b.block_id(1);
  Value* row0 = b.mul(by, spec.tile.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, spec.tile.block_n);
  const tile::Accumulators acc = tile::mainloop(b, cfg, ops, elem, row0, col0);
  if (one_phase(spec)) {
    store_phase(b, spec, acc, dx, group, row0, col0);
  } else if (c.channels_last()) {
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
