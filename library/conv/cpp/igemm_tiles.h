// The tile each arch runs conv_igemm_fwd with, mirroring the table of
// library/conv/igemm_tiles.py: one row per arch, read from
// library/conv/igemm_tiles.json (the file igemm_tiles.py reads) through a
// generated header.
//
//   IgemmSpec s = rocke::conv::igemm_spec_for("gfx942", conv);
#pragma once

#include <string_view>
#include <vector>

#include "library/conv/cpp/igemm_spec.h"
#include "library/conv/cpp/spec.h"

namespace rocke::conv {

struct IgemmTile {
  std::string_view arch;
  std::string_view mma;
  int block_m, block_n, block_k, waves_m, waves_n;
};

// Every row, in the file's order.
const std::vector<IgemmTile>& igemm_tiles();

// igemm_tiles.spec_for: the IgemmSpec of `conv` on `arch` with the table's
// tile (IgemmSpecError worded as Python's).
IgemmSpec igemm_spec_for(std::string_view arch, const ConvSpec& conv);

}  // namespace rocke::conv
