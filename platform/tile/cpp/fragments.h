// How platform/tile lays matrix-core fragments out across a wave's lanes,
// mirroring platform/tile/fragments.py. The A/B placements' numbers and the
// input types come from platform/tile/fragments.json, the C/D placements from
// platform/arch/mma_layouts.json, the layout id of each (op id, generation)
// from platform/arch/mma_forms.json, all through generated headers
// (BUILD.bazel).
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

struct Fragment {
  int rows;      // lanes per k group (the M or N extent one group covers)
  int groups;    // k groups across the wave (1: lanes repeat, as on gfx11)
  int per_lane;  // consecutive k per lane
  int c_n;       // C/D (mma_layouts.json): lane l holds column l % c_n,
  int c_run;     // its elements v, v+1, ... (v a multiple of c_run) in consecutive rows,
  int c_stride;  // each run c_stride rows after the one before

  // (row, col) of lane's C/D element v, as the hardware places it (Fragment.c).
  std::pair<ir::Value*, ir::Value*> c(ir::KernelBuilder& b, ir::Value* lane, int v) const;

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
