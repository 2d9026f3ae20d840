// How platform/tile lays matrix-core fragments out across a wave's lanes,
// mirroring platform/tile/fragments.py. The placements' numbers, their C
// formula names and the input types come from platform/tile/fragments.json,
// the layout id of each (op id, generation) from platform/arch/mma_forms.json,
// both through generated headers (BUILD.bazel); the C formulas are code, one
// per name, as in fragments.py.
//
//   const Fragment* f = rocke::tile::fragment("mma_16x16x16_f16_f32", "gfx9");
//   auto [row, k] = f->origin(b, lane);
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own statement,
// in Python's order.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/core.h"

namespace rocke::tile {

// (builder, lane, element v) -> (row, col) of lane's C/D element v.
using CFormula = std::pair<ir::Value*, ir::Value*> (*)(ir::KernelBuilder&, ir::Value*, int);

struct Fragment {
  int rows;      // lanes per k group (the M or N extent one group covers)
  int groups;    // k groups across the wave (1: lanes repeat, as on gfx11)
  int per_lane;  // consecutive k per lane
  CFormula c;    // (row, col) of lane l's C element v
  int c_run;     // elements v, v+1, ... (v a multiple of it) lie in consecutive rows, one column

  // (row, k): lane's A fragment is that row of the A tile at k, k+1, ...; its
  // B fragment that column of the B tile. With `span` (a multiple of
  // per_lane) each group's k lie `span` apart (Fragment.origin).
  std::pair<ir::Value*, ir::Value*> origin(ir::KernelBuilder& b, ir::Value* lane,
                                           std::optional<int> span = std::nullopt) const;
};

// The Fragment of a layout id (fragments.BY_ID), or nullptr.
const Fragment* by_id(std::string_view layout);

// The Fragment of (op id, arch generation) for the forms the tile's GEMM can use
// (fragments.FRAGMENTS: inputs of fragments.json's types), or nullptr.
const Fragment* fragment(std::string_view op_id, std::string_view generation);

}  // namespace rocke::tile
