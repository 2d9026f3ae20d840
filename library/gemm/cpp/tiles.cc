#include "library/gemm/cpp/tiles.h"

#include "library/gemm/cpp/tiles_data.h"

namespace rocke::gemm {

const std::vector<TileRow>& tiles() {
  static const std::vector<TileRow> table = [] {
    std::vector<TileRow> out;
    for (const auto& r : data::gemm_tiles::kTiles) {
      for (const TileRow& t : out) {
        // tiles.py refuses such a file at import (gemm_test); this only guards.
        if (t.arch == r.arch && t.dtype == r.dtype)
          throw std::logic_error("tiles.json: a second row for " + std::string(r.arch) + " " + std::string(r.dtype));
      }
      const json::Object row{{"mma", std::string(r.mma)}, {"block_m", r.block_m}, {"block_n", r.block_n},
                             {"block_k", r.block_k},      {"waves_m", r.waves_m}, {"waves_n", r.waves_n}};
      const std::string where = "tiles.json: tiles[" + std::to_string(out.size()) + "]";
      out.push_back(TileRow{r.arch, r.dtype, tile::Tile::of(row, where, "errors.errors.FieldError")});
    }
    return out;
  }();
  return table;
}

GemmSpec spec_for(std::string_view arch, std::int64_t m, std::int64_t n, std::int64_t k, std::string_view dtype,
                  std::string_view out, const Options& options) {
  for (const TileRow& t : tiles()) {
    if (t.arch != arch || t.dtype != dtype) continue;
    json::Object spec = t.tile.to_json();
    spec.insert({
        {"m", m},
        {"n", n},
        {"k", k},
        {"dtype", std::string(dtype)},
        {"out", std::string(out)},
        {"layout_a", options.layout_a},
        {"layout_b", options.layout_b},
        {"bias", options.bias},
        {"activation", options.activation},
        {"residual", options.residual},
        {"scale", options.scale},
    });
    return GemmSpec::from_json(spec);
  }
  std::string offered;
  json::Array rows;
  for (const TileRow& t : tiles()) {
    offered += (offered.empty() ? "" : ", ") + std::string(t.arch) + " " + std::string(t.dtype);
    rows.emplace_back(json::Array{std::string(t.arch), std::string(t.dtype)});
  }
  const json::Value got = json::Array{std::string(arch), std::string(dtype)};
  throw TileError("gemm.tiles.TileError", "gemm tiles", got, std::move(rows),
                  errors::worded("gemm tiles", "an arch and input type with a tile (" + offered + ")", got,
                                 "add a row to library/gemm/tiles.json"));
}

}  // namespace rocke::gemm
