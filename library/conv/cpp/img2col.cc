// conv_img2col, mirroring library/conv/img2col.py: convolution as a GEMM
// over the im2col matrix, one output per lane. Output (n, o..., k) is row m
// of an (N*O) x K GEMM: the dot product of the input patch behind it (a row
// of the im2col matrix, gathered on the fly) with filter k, one contiguous
// row of C*R*S weights in either layout. A single run-time loop walks that
// reduction index and decomposes it into the channel and tap. groups must be
// 1: a grouped layer is a Refusal of Python's class Img2colSpecError.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "library/conv/cpp/common.h"
#include "library/conv/cpp/spec.h"
#include "library/conv/family_names.h"
#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"

namespace rocke::conv {
namespace {

using ir::Value;

std::unique_ptr<ir::Kernel> build(const family::Case& c) {
  const ConvSpec spec = ConvSpec::from_json(c.spec);
  if (spec.groups != 1) {
    throw family::Refusal("conv.img2col.Img2colSpecError", "ConvSpec.groups", spec.groups, json::Array{1},
                          errors::worded("ConvSpec.groups", "1 (conv_img2col is one GEMM)", spec.groups,
                                         "conv_direct_fwd or conv_igemm_fwd take grouped layers"));
  }
  Frame fr(std::string(family_names::conv::img2col) + "_" + c.id, spec, c.arch);
  ir::KernelBuilder& b = fr.b;
  // The reduction index j walks a weight row in memory order: C * R * S.
  Shape order = spec.filter;
  if (spec.channels_last()) {
    order.push_back(spec.c);
  } else {
    order.insert(order.begin(), spec.c);
  }
  const std::int64_t reduction = product(order);

  auto body = [&] {
    Value* row = b.mul(fr.k, reduction);
    Value* zero = b.const_(0.0, ir::scalar("f32"));
    std::vector<Value*> results = b.for_range(0, reduction, 1, {zero}, [&](const ir::Loop& loop) {
      Value* j = loop.iv;
      std::vector<Value*> parts = unflatten(b, j, order);
      Value* channel = spec.channels_last() ? parts.back() : parts.front();
      std::vector<ir::Operand> tap = spec.channels_last() ? std::vector<ir::Operand>(parts.begin(), parts.end() - 1)
                                                          : std::vector<ir::Operand>(parts.begin() + 1, parts.end());
      Value* input = fr.tap(channel, tap);
      Value* index = b.add(row, j);
      Value* weight = fr.weight(index);
      Value* acc = b.fma(input, weight, loop.iters[0]);
      b.yield_({acc});
    });
    fr.store(results[0]);
  };
  return fr.kernel(body);
}

const family::Registration kRegistration({
    .name = family_names::conv::img2col,
    .build = &build,
    .spec_json = &normalised,
});

}  // namespace
}  // namespace rocke::conv
