// Mirrors library/conv/gather_address.py op for op (gather_address.h).
#include "library/conv/cpp/gather_address.h"

#include <algorithm>

#include "library/conv/cpp/common.h"
#include "platform/ir/cpp/types.h"

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
    tap = b.div(col, cpg);
    ch = b.rem(col, cpg);
  } else {
    ch = b.div(col, taps);
    tap = b.rem(col, taps);
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

}  // namespace rocke::conv
