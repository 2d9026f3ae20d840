// Mirrors library/conv/gather_address.py op for op (gather_address.h).
#include "library/conv/cpp/gather_address.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "library/conv/cpp/common.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/gather.h"

namespace rocke::conv {

using ir::Value;

bool whole_units(std::int64_t count, const std::string& dtype) {
  return count % (kUnitBytes / ir::scalar(dtype)->nbytes()) == 0;
}

Pixel output_pixel(ir::KernelBuilder& b, const ConvSpec& c, Value* row) {
  Shape sizes = {c.n};
  const Shape out = c.output();
  sizes.insert(sizes.end(), out.begin(), out.end());
  const std::vector<Value*> parts = unflatten(b, row, sizes);
  return {parts[0], std::vector<Value*>(parts.begin() + 1, parts.end())};
}

std::pair<Value*, Value*> input_address(ir::KernelBuilder& b, const ConvSpec& c, Value* group, const Pixel& px,
                                        Value* col) {
  const std::int64_t taps = product(c.filter);
  const std::int64_t cpg = c.c_per_group();
  Value* tap;
  Value* ch;
  if (c.channels_last()) {
    tap = b.udiv(col, cpg);
    ch = b.urem(col, cpg);
  } else {
    ch = b.udiv(col, taps);
    tap = b.urem(col, taps);
  }
  const std::vector<Value*> t = unflatten(b, tap, c.filter);
  std::vector<Value*> pos;
  Value* valid = nullptr;
  const std::size_t dims = std::min({px.o.size(), t.size(), c.spatial.size()});  // zip
  for (std::size_t i = 0; i < dims; ++i) {
    Value* strided = b.mul(px.o[i], c.stride[i]);
    Value* dilated = b.mul(t[i], c.dilation[i]);
    Value* shifted = b.sub(dilated, c.pad[i]);
    Value* x = b.add(strided, shifted);
    Value* low = b.cmp("ge", x, 0);
    Value* high = b.cmp("lt", x, c.spatial[i]);
    Value* ok = b.and_(low, high);
    valid = valid == nullptr ? ok : b.and_(valid, ok);
    pos.push_back(x);
  }
  Value* first = b.mul(group, cpg);
  Value* channel = b.add(first, ch);
  return {layout_index(b, c, px.n, pos, channel, c.input_shape()), valid};
}

bool stepped(const ConvSpec& c, std::int64_t block_k) {
  return c.channels_last() && whole_units(c.c_per_group(), c.dtype) && c.c_per_group() % block_k == 0 &&
         product(c.filter) <= kMaxSteppedTaps;
}

std::vector<int> padded_dims(const ConvSpec& c) {
  const Shape out = c.output();
  std::vector<int> dims;
  for (int d = 0; d < c.dims(); ++d) {
    if (c.pad[d] > 0 || (out[d] - 1) * c.stride[d] + (c.filter[d] - 1) * c.dilation[d] - c.pad[d] >= c.spatial[d]) {
      dims.push_back(d);
    }
  }
  return dims;
}

Value* padding_mask(ir::KernelBuilder& b, const ConvSpec& c, const std::vector<Value*>& first,
                    const std::vector<int>& dims, const Shape& extents) {
  const ir::Type* i32 = ir::scalar("i32");
  std::map<std::pair<int, std::int64_t>, Value*> outside;
  Value* mask = nullptr;
  const std::int64_t taps = product(extents);
  for (std::int64_t tap = 0; tap < taps; ++tap) {
    // The tap's coordinates, row-major (itertools.product's order).
    std::vector<std::int64_t> ts(extents.size());
    std::int64_t rest = tap;
    for (std::size_t d = extents.size(); d-- > 0;) {
      ts[d] = rest % extents[d];
      rest /= extents[d];
    }
    Value* out = nullptr;
    for (const int d : dims) {
      auto [at, fresh] = outside.try_emplace({d, ts[d]}, nullptr);
      if (fresh) {
        Value* x = b.add(first[d], ts[d] * c.dilation[d]);
        Value* low = b.cmp("lt", x, 0);
        Value* high = b.cmp("ge", x, c.spatial[d]);
        at->second = b.or_(low, high);
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

Value* floor_div(ir::KernelBuilder& b, Value* x, std::int64_t d, std::int64_t bound) {
  if ((d & (d - 1)) == 0) {
    int shift = 0;
    while ((std::int64_t{1} << (shift + 1)) <= d) ++shift;
    return b.shr(x, shift);
  }
  for (int s = 1; s < 31; ++s) {
    const std::int64_t power = std::int64_t{1} << s;
    const std::int64_t m = (power + d - 1) / d;
    if ((m * d - power) * (bound - 1) < power && (bound - 1) * m < (std::int64_t{1} << 31)) {
      Value* scaled = b.mul(x, m);
      return b.shr(scaled, s);
    }
  }
  return b.udiv(x, d);
}

Value* stepped_offset(ir::KernelBuilder& b, const ConvSpec& c, Value* group, Value* row, Value* k0, Value* k) {
  const std::int64_t cpg = c.c_per_group();
  const int nbytes = ir::scalar(c.dtype)->nbytes();
  const std::int64_t taps = product(c.filter);
  const Pixel px = output_pixel(b, c, row);
  std::vector<Value*> first;
  const std::size_t dims = std::min({px.o.size(), c.stride.size(), c.pad.size()});  // zip
  for (std::size_t i = 0; i < dims; ++i) {
    Value* strided = b.mul(px.o[i], c.stride[i]);
    first.push_back(b.sub(strided, c.pad[i]));
  }
  Value* channel_first = b.mul(group, cpg);
  Value* channel = b.add(channel_first, k);
  const Shape shape = c.input_shape();
  const std::vector<int> padded = padded_dims(c);
  Value* lane = layout_index(b, c, px.n, first, channel, shape);
  struct Move {
    std::size_t d;
    std::int64_t inner;  // taps inside one of its coordinates
    std::int64_t coef;
  };
  std::vector<Move> moves;
  for (std::size_t d = 0; d < c.filter.size(); ++d) {
    const auto at = static_cast<std::ptrdiff_t>(d);
    const std::int64_t inner = product(Shape(c.filter.begin() + at + 1, c.filter.end()));
    const std::int64_t coef = c.dilation[d] * product(Shape(shape.begin() + at + 2, shape.end())) - cpg * inner;
    if (c.filter[d] > 1 && coef != 0) moves.push_back({d, inner, coef});
  }
  Value* tap = !moves.empty() || !padded.empty() ? floor_div(b, k0, cpg, cpg * taps) : nullptr;
  Value* step = k0;
  for (const Move& mv : moves) {
    Value* t = floor_div(b, tap, mv.inner, taps);
    if (mv.d > 0) {
      const std::int64_t f = c.filter[mv.d];
      Value* q = floor_div(b, t, f, (taps + mv.inner - 1) / mv.inner);
      Value* whole = b.mul(q, f);
      t = b.sub(t, whole);
    }
    Value* moved = b.mul(t, mv.coef);
    step = b.add(step, moved);
  }
  Value* lane_bytes = b.mul(lane, nbytes);
  Value* step_bytes = b.mul(step, nbytes);
  Value* offset = b.add(lane_bytes, step_bytes);
  if (padded.empty()) return offset;
  Value* mask = padding_mask(b, c, first, padded, c.filter);
  Value* shifted = b.shr(mask, tap);
  Value* bit = b.and_(shifted, 1);
  Value* flag = b.shl(bit, tile::kPaddingBit);
  return b.or_(offset, flag);
}

}  // namespace rocke::conv
