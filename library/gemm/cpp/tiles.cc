#include "library/gemm/cpp/tiles.h"

#include "library/gemm/cpp/tiles_data.h"

namespace rocke::gemm {

const std::vector<Tile>& tiles() {
  static const std::vector<Tile> table = [] {
    std::vector<Tile> out;
    for (const auto& r : data::gemm_tiles::kTiles) {
      for (const Tile& t : out) {
        // tiles.py refuses such a file at import (gemm_test); this only guards.
        if (t.arch == r.arch && t.dtype == r.dtype)
          throw std::logic_error("tiles.json: a second row for " + std::string(r.arch) + " " + std::string(r.dtype));
      }
      out.push_back(Tile{r.arch, r.dtype, r.mma, r.block_m, r.block_n, r.block_k, r.waves_m, r.waves_n});
    }
    return out;
  }();
  return table;
}

GemmSpec spec_for(std::string_view arch, std::int64_t m, std::int64_t n, std::int64_t k, std::string_view dtype,
                  std::string_view out, const Options& options) {
  for (const Tile& t : tiles()) {
    if (t.arch != arch || t.dtype != dtype) continue;
    return GemmSpec::from_json(json::Object{
        {"m", m},
        {"n", n},
        {"k", k},
        {"dtype", std::string(dtype)},
        {"out", std::string(out)},
        {"mma", std::string(t.mma)},
        {"block_m", t.block_m},
        {"block_n", t.block_n},
        {"block_k", t.block_k},
        {"waves_m", t.waves_m},
        {"waves_n", t.waves_n},
        {"layout_a", options.layout_a},
        {"layout_b", options.layout_b},
        {"bias_relu", options.bias_relu},
    });
  }
  std::string offered;
  json::Array rows;
  for (const Tile& t : tiles()) {
    offered += (offered.empty() ? "" : ", ") + std::string(t.arch) + " " + std::string(t.dtype);
    rows.emplace_back(json::Array{std::string(t.arch), std::string(t.dtype)});
  }
  const json::Value got = json::Array{std::string(arch), std::string(dtype)};
  throw TileError("gemm.tiles.TileError", "gemm tiles", got, std::move(rows),
                  errors::worded("gemm tiles", "an arch and input type with a tile (" + offered + ")", got,
                                 "add a row to library/gemm/tiles.json"));
}

}  // namespace rocke::gemm
