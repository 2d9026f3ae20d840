// Matrix-core op ids and their fragments as IR types, mirroring
// platform/ir/mma.py. The ids, shapes and per-lane fragment lengths come from
// platform/arch/mma_forms.json through a generated header (BUILD.bazel);
// only the map from the file's element-type tokens to IR types is here, as
// in mma.py.
//
//   rocke::ir::mma::shape("mma_16x16x16_f16_f32")->a       // f16
//   rocke::ir::mma::fragment_types("mma_16x16x16_f16_f32", "gfx9").c   // vector<4xf32>
#pragma once

#include <optional>
#include <string_view>

#include "platform/ir/cpp/types.h"

namespace rocke::ir::mma {

struct Shape {
  int m, n, k;
  const Type* a;  // A and B element type
  const Type* c;  // C and D element type
};

struct Fragments {
  const Type* a;
  const Type* b;
  const Type* c;
};

// The Shape of an op id, or std::nullopt if `op_id` is not one (mma.shape).
std::optional<Shape> shape(std::string_view op_id);

// The (A, B, C) fragment types of `op_id` on an arch of `generation`
// (mma.fragment_types); std::out_of_range when mma_forms.json has no such
// form (Python's KeyError; the verifier asks only for forms the arch has).
Fragments fragment_types(std::string_view op_id, std::string_view generation);

}  // namespace rocke::ir::mma
