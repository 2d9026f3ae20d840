// The tile each arch runs a GEMM with, mirroring library/gemm/tiles.py: one
// row per arch and input type, read from library/gemm/tiles.json (the file
// tiles.py reads) through a generated header.
//
//   GemmSpec s = rocke::gemm::spec_for("gfx942", 256, 256, 64, "f16", "f16");
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "library/gemm/cpp/spec.h"
#include "platform/errors/cpp/errors.h"
#include "platform/tile/cpp/tile.h"

namespace rocke::gemm {

// One row of the table: an arch and input type, and their tile.
struct TileRow {
  std::string_view arch;
  std::string_view dtype;
  tile::Tile tile;
};

// No tile for the arch and input type asked for (tiles.TileError).
class TileError : public errors::FieldError {
 public:
  using errors::FieldError::FieldError;
};

// Every row, in the file's order.
const std::vector<TileRow>& tiles();

// GemmSpec's optional fields.
struct Options {
  std::string layout_a = "row";
  std::string layout_b = "row";
  bool bias = false;
  std::string activation = "none";
  std::string residual = "none";
  std::string scale = "1";
};

// tiles.spec_for: the GemmSpec of a problem on `arch` with the table's tile
// (TileError, as Python's; SpecError for a bad problem).
GemmSpec spec_for(std::string_view arch, std::int64_t m, std::int64_t n, std::int64_t k, std::string_view dtype,
                  std::string_view out, const Options& options = {});

}  // namespace rocke::gemm
