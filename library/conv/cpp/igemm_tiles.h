// The tile each arch runs conv_igemm_fwd with, mirroring the table of
// library/conv/igemm_tiles.py: one row per arch, read from
// library/conv/igemm_tiles.json (the file igemm_tiles.py reads) through a
// generated header; with the two facts the implicit-GEMM families take from
// a spec's tile on an arch (its wave size, its tile config).
//
//   IgemmSpec s = rocke::conv::igemm_spec_for("gfx942", conv);
#pragma once

#include <string_view>
#include <vector>

#include "library/conv/cpp/igemm_spec.h"
#include "library/conv/cpp/spec.h"
#include "platform/tile/cpp/gemm.h"
#include "platform/tile/cpp/tile.h"

namespace rocke::conv {

// One row of the table: an arch and its tile.
struct IgemmTile {
  std::string_view arch;
  tile::Tile tile;
};

// Every row, in the file's order.
const std::vector<IgemmTile>& igemm_tiles();

// igemm_tiles.spec_for: the IgemmSpec of `conv` on `arch` with the table's
// tile (IgemmSpecError, as Python's).
IgemmSpec igemm_spec_for(std::string_view arch, const ConvSpec& conv);

// The wave size of the matrix op of `spec` on `arch` (igemm_tiles.form);
// IgemmSpecError (a family::Refusal) if the arch lacks the op.
int form_wave(const IgemmSpec& spec, std::string_view arch);

// The spec's op and tile as the tile blocks' config (Python's
// GemmConfig(spec.op, spec.tile)).
tile::GemmConfig gemm_config(const IgemmSpec& spec);

}  // namespace rocke::conv
