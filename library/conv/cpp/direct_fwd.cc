// conv_direct_fwd, mirroring library/conv/direct_fwd.py: direct forward
// convolution, one output per lane. Each lane loops over its group's input
// channels at run time and over the filter taps when building (unrolled),
// accumulating in f32. Any groups, depthwise included.
#include <cstdint>
#include <memory>
#include <vector>

#include "library/conv/cpp/common.h"
#include "library/conv/cpp/spec.h"
#include "library/conv/family_names.h"
#include "platform/family/cpp/family.h"

namespace rocke::conv {
namespace {

using ir::Value;

// itertools.product(*(range(f) for f in filter)): every tap, the last
// dimension fastest.
std::vector<Shape> all_taps(const Shape& filter) {
  std::vector<Shape> out = {Shape(filter.size(), 0)};
  for (std::size_t d = 0; d < filter.size(); ++d) {
    std::vector<Shape> next;
    for (const Shape& prefix : out) {
      for (std::int64_t t = 0; t < filter[d]; ++t) {
        next.push_back(prefix);
        next.back()[d] = t;
      }
    }
    out = std::move(next);
  }
  return out;
}

std::int64_t linear(const Shape& taps, const Shape& sizes) {
  std::int64_t index = 0;
  for (std::size_t i = 0; i < taps.size(); ++i) index = index * sizes[i] + taps[i];
  return index;
}

std::unique_ptr<ir::Kernel> build(const family::Case& c) {
  const ConvSpec spec = ConvSpec::from_json(c.spec);
  Frame fr(std::string(family_names::conv::direct_fwd) + "_" + c.id, spec, c.arch);
  ir::KernelBuilder& b = fr.b;
  const std::int64_t cpg = spec.c_per_group(), filter_size = product(spec.filter);

  auto body = [&] {
    Value* group = b.udiv(fr.k, spec.k_per_group());
    Value* zero = b.const_(0.0, ir::scalar("f32"));
    std::vector<Value*> results = b.for_range(0, cpg, 1, {zero}, [&](const ir::Loop& loop) {
      Value* ci = loop.iv;
      Value* first = b.mul(group, cpg);
      Value* channel = b.add(first, ci);
      Value* acc = loop.iters[0];
      for (const Shape& taps : all_taps(spec.filter)) {
        Value* w_index;
        if (spec.channels_last()) {
          Value* row = b.mul(fr.k, filter_size);
          Value* tap = b.add(row, linear(taps, spec.filter));
          Value* scaled = b.mul(tap, cpg);
          w_index = b.add(scaled, ci);
        } else {
          Value* row = b.mul(fr.k, cpg);
          Value* plane = b.add(row, ci);
          Value* scaled = b.mul(plane, filter_size);
          w_index = b.add(scaled, linear(taps, spec.filter));
        }
        Value* input = fr.tap(channel, std::vector<ir::Operand>(taps.begin(), taps.end()));
        Value* weight = fr.weight(w_index);
        acc = b.fma(input, weight, acc);
      }
      b.yield_({acc});
    });
    fr.store(results[0]);
  };
  return fr.kernel(body);
}

const family::Registration kRegistration({
    .name = family_names::conv::direct_fwd,
    .build = &build,
    .spec_json = &normalised,
});

}  // namespace
}  // namespace rocke::conv
