// conv_fwd_split_k_reduce, mirroring library/conv/split_k_reduce.py: the
// second pass of a split-K convolution, y = convert(finish(sum of the f32
// workspace slices)), finish the layer's epilogue. split_k_reduce.py's
// docstring has the workspace convention, the lane vectors and the bias paths.
//
// reduce_kernel is the plain builder any split family calls (conv_igemm_wgrad's
// two-stage split, with no Channels); ReduceSpec is the forward family's spec.
//
//   auto k = reduce_kernel("name", "gfx942", elements, 4, "f16", Channels{64, 1});
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "library/conv/cpp/spec.h"
#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/core.h"

namespace rocke::conv {

// Python's ReduceSpecError, a family::Refusal: every error of ReduceSpec but
// its conv's (ConvSpec's) and the workspace size (check_tensor_bytes).
class ReduceSpecError : public family::Refusal {
 public:
  // The error of `field` for `value`; `choices` is what it allows as data
  // (a list, a limit) or null; the message says `allowed`, then `fix`.
  ReduceSpecError(const std::string& field, const json::Value& value, std::string_view allowed,
                  json::Value choices = nullptr, std::string_view fix = "")
      : family::Refusal("conv.split_k_reduce.ReduceSpecError", field, value, std::move(choices),
                        errors::worded(field, allowed, value, fix)) {}
};

// Where element e's bias is: bias[(e / inner) % count] (split_k_reduce.Channels).
struct Channels {
  std::int64_t count;  // K
  std::int64_t inner;  // 1 channels-last, output pixels channels-first
};

// split_k_reduce.channels_of: the Channels of a ConvSpec's output layout.
Channels channels_of(const ConvSpec& conv);

// V: the widest lane vector (4, 2, 1) that divides `elements`.
int vector_width(std::int64_t elements);

// tile::finish's activation, residual place and scale (tile.gemm.spec_epilogue); the default adds nothing.
struct Epilogue {
  std::string activation = "none";
  std::string residual_at = "before_activation";
  double scale = 1.0;
};

// The kernel `name`(ws, y, [bias], [residual]) on `arch`: y (`dtype`,
// `elements` of them) from `splits` f32 workspace slices, through
// tile::finish first: bias with `channels`, the residual with `residual`,
// and `epilogue`.
std::unique_ptr<ir::Kernel> reduce_kernel(std::string name, std::string_view arch, std::int64_t elements,
                                          std::int64_t splits, const std::string& dtype,
                                          std::optional<Channels> channels = std::nullopt, bool residual = false,
                                          const Epilogue& epilogue = {});

// reduce_spec.ReduceSpec: a split layer, its split and the tensor the reduce
// finishes ("y", the forward output; "dw", the weight gradient).
struct ReduceSpec {
  ConvSpec conv;
  std::int64_t split_k = 0;
  std::string tensor = "y";

  // ReduceSpec.from_json(obj): ReduceSpecError (or
  // ConvSpec's SpecError, for a bad conv or workspace).
  static ReduceSpec from_json(const json::Value& obj);
  json::Value to_json() const;
  // The finished tensor's shape, one workspace slice.
  Shape shape() const { return tensor == "y" ? conv.output_shape() : conv.weight_shape(); }
  std::int64_t elements() const { return product(shape()); }
};

}  // namespace rocke::conv
