// What both conv families share, mirroring library/conv/common.py op for op:
// the kernel frame (one output per lane), input taps with padding masks, the
// weight load and the epilogue.
//
// ORDER (platform/ir/cpp/builder.h): every builder call that makes an op is
// its own statement, in the order Python evaluates the expression it mirrors,
// so the ops and their bytes come out as Python's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "library/conv/cpp/spec.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/core.h"

namespace rocke::conv {

// Lanes per workgroup (common.WORKGROUP).
inline constexpr int kWorkgroup = 256;

// Row-major linear index of IR values `dims` in an array of `sizes`.
ir::Value* flatten(ir::KernelBuilder& b, const std::vector<ir::Value*>& dims, const Shape& sizes);
// IR values of each coordinate of a row-major linear index.
std::vector<ir::Value*> unflatten(ir::KernelBuilder& b, ir::Value* index, const Shape& sizes);
// The element index of (n, position, channel) in a tensor of `shape` in the
// spec's layout: channels last (NHWC) or first after n (NCHW).
ir::Value* layout_index(ir::KernelBuilder& b, const ConvSpec& spec, ir::Value* n, const std::vector<ir::Value*>& pos,
                        ir::Value* channel, const Shape& shape);

// The kernel and the coordinates of the output this lane computes.
class Frame {
 public:
  Frame(std::string name, const ConvSpec& spec, std::string_view arch);
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;

  // The input value (as f32) at channel c and filter offsets `taps`, 0 in the
  // padding. A tap is an IR value or a number known when building (Python's
  // `isinstance(f, int)`: an unrolled tap folds into one constant).
  ir::Value* tap(ir::Value* c, const std::vector<ir::Operand>& taps);
  // The weight at linear `index`, as f32.
  ir::Value* weight(ir::Value* index);
  // Bias and relu if asked, convert to the output type, store.
  void store(ir::Value* acc);
  // The finished kernel: body() runs only in lanes that have an output (the
  // last workgroup is partial).
  std::unique_ptr<ir::Kernel> kernel(const std::function<void()>& body);

  ConvSpec spec;
  const ir::Type* elem;
  ir::KernelBuilder b;
  ir::Value* x;
  ir::Value* w;
  ir::Value* y;
  ir::Value* bias = nullptr;      // with bias only
  ir::Value* residual = nullptr;  // with a residual only
  ir::Value* gid;
  ir::Value* n;
  std::vector<ir::Value*> o;  // output position, one per spatial dimension
  ir::Value* k;
};

}  // namespace rocke::conv
