// Mirrors library/conv/row_runs.py op for op (row_runs.h).
#include "library/conv/cpp/row_runs.h"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "library/conv/cpp/common.h"
#include "library/conv/cpp/gather_address.h"
#include "platform/ir/cpp/types.h"

namespace rocke::conv {

using ir::Value;

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

bool needs_patch(const ConvSpec& c, std::int64_t block_k) {
  const std::vector<int> dims = padded_dims(c);
  const int last = c.dims() - 1;
  return row_piece(c) < block_k || std::find(dims.begin(), dims.end(), last) != dims.end();
}

// The i32 words of a unit of 16-bit elements whose element e is kept where valid[e] is true (_words).
Value* words(ir::KernelBuilder& b, const std::vector<Value*>& valid) {
  const ir::Type* i32 = ir::scalar("i32");
  std::vector<Value*> out;
  for (std::size_t i = 0; i + 1 < valid.size(); i += 2) {
    Value* ones = b.const_(0xFFFF, i32);
    Value* none = b.const_(0, i32);
    Value* low = b.select(valid[i], ones, none);
    Value* high_ones = b.const_(-0x10000, i32);
    Value* high_none = b.const_(0, i32);
    Value* high = b.select(valid[i + 1], high_ones, high_none);
    out.push_back(b.or_(low, high));
  }
  return b.build(out);
}

int unit_elems(const ConvSpec& c) { return kUnitBytes / ir::scalar(c.dtype)->nbytes(); }

// (first k position of the run's last unit, the elements it would read past the run) (_last_unit).
std::pair<std::int64_t, std::int64_t> last_unit(const ConvSpec& c) {
  const std::int64_t unit = unit_elems(c), run = row_piece(c);
  const std::int64_t last = (run - 1) / unit * unit;
  return {last, last + unit - run};
}

// The run position k position `j` of a filter row holds (place).
Value* place(ir::KernelBuilder& b, const ConvSpec& c, Value* j) {
  const auto [last, shift] = last_unit(c);
  if (shift == 0) return j;
  const ir::Type* i32 = ir::scalar("i32");
  Value* past = b.cmp("ge", j, last);
  Value* by = b.const_(shift, i32);
  Value* none = b.const_(0, i32);
  Value* back = b.select(past, by, none);
  return b.sub(j, back);
}

// Whether run position q of a unit whose k positions start at `start` is the unit's to add (_in_run).
Value* in_run(ir::KernelBuilder& b, const ConvSpec& c, Value* q, Value* start) {
  Value* low = b.cmp("ge", q, start);
  Value* high = b.cmp("lt", q, row_piece(c));
  return b.and_(low, high);
}

// The k position of the first element of j's unit: j - j % unit.
Value* unit_start(ir::KernelBuilder& b, const ConvSpec& c, Value* j) {
  Value* into = b.urem(j, unit_elems(c));
  return b.sub(j, into);
}

// A lane's pixel and its first input position (im2col's `first`).
std::pair<Value*, std::vector<Value*>> first_of(ir::KernelBuilder& b, const ConvSpec& c, Value* row) {
  const Pixel px = output_pixel(b, c, row);
  std::vector<Value*> pos;
  for (std::size_t d = 0; d < px.o.size(); ++d) {
    Value* strided = b.mul(px.o[d], c.stride[d]);
    pos.push_back(b.sub(strided, c.pad[d]));
  }
  return {px.n, pos};
}

}  // namespace

std::int64_t row_piece(const ConvSpec& c) { return c.filter.back() * c.c; }

std::int64_t filter_rows(const ConvSpec& c) { return product(Shape(c.filter.begin(), c.filter.end() - 1)); }

std::optional<std::string> row_runs_refusal(const ConvSpec& c, std::int64_t block_k) {
  if (!c.channels_last()) return "channels last (NHWC), got layout " + quoted(c.layout);
  if (c.groups != 1) return "one group (a run holds every channel), got " + std::to_string(c.groups);
  if (c.dilation.back() != 1) {
    return "no dilation in the last dim (a run is contiguous), got " + std::to_string(c.dilation.back());
  }
  if (row_piece(c) < unit_elems(c)) {
    return "a filter row of at least " + std::to_string(unit_elems(c)) + " elements (one 16-byte unit), got " +
           std::to_string(row_piece(c)) + " (X " + std::to_string(c.filter.back()) + " x C " + std::to_string(c.c) +
           ")";
  }
  if (row_piece(c) > block_k) {
    return "a filter row of at most " + std::to_string(block_k) + " elements (the k step), got " +
           std::to_string(row_piece(c)) + " (X " + std::to_string(c.filter.back()) + " x C " + std::to_string(c.c) +
           ")";
  }
  if (filter_rows(c) > kMaxRows) {
    return "at most " + std::to_string(kMaxRows) + " filter rows, got " + std::to_string(filter_rows(c));
  }
  return std::nullopt;
}

std::int64_t row_runs_fast_from(const ConvSpec& c) {
  const std::int64_t pad = c.pad.back();
  const std::int64_t inner = product(Shape(c.spatial.begin() + 1, c.spatial.end()));
  if (pad == 0) return 0;
  const Shape out = c.output();
  std::int64_t first = out[0];
  for (std::int64_t o = 0; o < out[0]; ++o) {
    if (std::max<std::int64_t>(0, o * c.stride[0] - c.pad[0]) * inner >= pad) {
      first = o;
      break;
    }
  }
  return first * product(Shape(out.begin() + 1, out.end()));
}

std::int64_t row_runs_fast_to(const ConvSpec& c) {
  const Shape out = c.output();
  if ((out.back() - 1) * c.stride.back() - c.pad.back() + c.filter.back() - 1 < c.spatial.back()) return 0;
  const std::int64_t reach = (c.filter[0] - 1) * c.dilation[0] - c.pad[0];
  for (std::int64_t o = 0; o < out[0]; ++o) {
    if (o * c.stride[0] + reach >= c.spatial[0] - 1) {
      return (c.n - 1) * product(out) + o * product(Shape(out.begin() + 1, out.end()));
    }
  }
  return 0;
}

tile::Gather row_runs_im2col(const ConvSpec& c, std::int64_t block_k, Value* group) {
  const std::int64_t step = block_k;
  const std::int64_t run = row_piece(c);
  const Shape shape = c.input_shape();
  const int nbytes = ir::scalar(c.dtype)->nbytes();
  auto address = [&c, step, run, group](ir::KernelBuilder& b, Value* row, Value* k) -> std::pair<Value*, Value*> {
    const Pixel px = output_pixel(b, c, row);
    Value* r = b.udiv(k, step);
    Value* j = b.urem(k, step);
    Value* q = place(b, c, j);
    Value* start = b.mul(r, run);
    Value* col = b.add(start, q);
    const auto [index, valid] = input_address(b, c, group, px, col);
    Value* first = unit_start(b, c, j);
    Value* kept = in_run(b, c, q, first);
    return {index, b.and_(valid, kept)};
  };
  auto stepped = [&c, step, shape, nbytes](ir::KernelBuilder& b, Value* row, Value* k0, Value* k) -> Value* {
    const auto [n, pos] = first_of(b, c, row);
    Value* start = place(b, c, k);
    Value* lane = layout_index(b, c, n, pos, start, shape);
    Value* r = floor_div(b, k0, step, step * filter_rows(c));
    const Shape outer(c.filter.begin(), c.filter.end() - 1);
    const std::vector<Value*> coords = c.filter.size() > 2 ? unflatten(b, r, outer) : std::vector<Value*>{r};
    Value* displacement = nullptr;
    for (std::size_t d = 0; d < coords.size(); ++d) {
      const auto at = static_cast<std::ptrdiff_t>(d);
      Value* move = b.mul(coords[d], c.dilation[d] * product(Shape(shape.begin() + at + 2, shape.end())));
      displacement = displacement == nullptr ? move : b.add(displacement, move);
    }
    Value* index = b.add(lane, displacement);
    Value* offset = b.mul(index, nbytes);
    std::vector<int> dims;
    for (const int d : padded_dims(c)) {
      if (d < c.dims() - 1) dims.push_back(d);
    }
    if (dims.empty()) return offset;
    Value* mask = padding_mask(b, c, pos, dims, Shape(c.filter.begin(), c.filter.end() - 1));
    Value* shifted = b.shr(mask, r);
    Value* bit = b.and_(shifted, 1);
    Value* flag = b.shl(bit, tile::kPaddingBit);
    return b.or_(offset, flag);
  };
  auto patch = [&c](ir::KernelBuilder& b, Value* row, Value* k) -> Value* {
    const auto [unused, pos] = first_of(b, c, row);
    Value* at = b.mul(pos.back(), c.c);  // the run's first element in its input line
    Value* start = place(b, c, k);
    std::vector<Value*> valid;
    for (int e = 0; e < unit_elems(c); ++e) {
      Value* q = b.add(start, e);
      Value* x = b.add(at, q);
      Value* low = b.cmp("ge", x, 0);
      Value* high = b.cmp("lt", x, c.spatial.back() * c.c);
      Value* inside = b.and_(low, high);
      Value* kept = in_run(b, c, q, k);
      valid.push_back(b.and_(inside, kept));
    }
    return words(b, valid);
  };
  tile::Gather g{address, true, "k", stepped, product(shape) * nbytes};
  if (needs_patch(c, step)) g.patch = patch;
  g.fast_from = row_runs_fast_from(c);
  g.fast_to = row_runs_fast_to(c);
  return g;
}

tile::Gather row_runs_weights(const ConvSpec& c, std::int64_t block_k) {
  const std::int64_t step = block_k;
  const std::int64_t run = row_piece(c);
  const std::int64_t length = filter_rows(c) * run;
  const int nbytes = ir::scalar(c.dtype)->nbytes();
  auto address = [&c, step, run, length](ir::KernelBuilder& b, Value* row, Value* kk) -> std::pair<Value*, Value*> {
    Value* r = b.udiv(kk, step);
    Value* j = b.urem(kk, step);
    Value* q = place(b, c, j);
    Value* start = b.mul(row, length);
    Value* rows_before = b.mul(r, run);
    Value* at = b.add(start, rows_before);
    Value* index = b.add(at, q);
    Value* first = unit_start(b, c, j);
    return {index, in_run(b, c, q, first)};
  };
  auto stepped = [&c, step, run, length, nbytes](ir::KernelBuilder& b, Value* row, Value* k0, Value* kk) -> Value* {
    Value* r = floor_div(b, k0, step, step * filter_rows(c));
    Value* start = b.mul(row, length);
    Value* q = place(b, c, kk);
    Value* lane = b.add(start, q);
    Value* rows_before = b.mul(r, run);
    Value* index = b.add(lane, rows_before);
    return b.mul(index, nbytes);
  };
  auto patch = [&c](ir::KernelBuilder& b, Value* /*row*/, Value* kk) -> Value* {
    Value* start = place(b, c, kk);
    std::vector<Value*> valid;
    for (int e = 0; e < unit_elems(c); ++e) {
      Value* q = b.add(start, e);
      valid.push_back(in_run(b, c, q, kk));
    }
    return words(b, valid);
  };
  // The buffer ends with the weights: the last filter's last row reads zeros past them.
  tile::Gather g{address, true, "k", stepped, c.k * length * nbytes};
  if (run < step) g.patch = patch;
  return g;
}

}  // namespace rocke::conv
