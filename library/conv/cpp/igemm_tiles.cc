#include "library/conv/cpp/igemm_tiles.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "library/conv/cpp/igemm_tiles_data.h"
#include "platform/arch/cpp/arch.h"
#include "platform/family/cpp/family.h"

namespace rocke::conv {

const std::vector<IgemmTile>& igemm_tiles() {
  static const std::vector<IgemmTile> table = [] {
    std::vector<IgemmTile> out;
    for (const auto& r : data::igemm_tiles::kTiles) {
      for (const IgemmTile& t : out) {
        // igemm_tiles.py refuses such a file at import; this only guards.
        if (t.arch == r.arch) throw std::logic_error("igemm_tiles.json: a second row for " + std::string(r.arch));
      }
      const json::Object row{{"mma", std::string(r.mma)}, {"block_m", r.block_m}, {"block_n", r.block_n},
                             {"block_k", r.block_k},      {"waves_m", r.waves_m}, {"waves_n", r.waves_n}};
      const std::string where = "igemm_tiles.json: tiles[" + std::to_string(out.size()) + "]";
      out.push_back(IgemmTile{r.arch, tile::Tile::of(row, where, "errors.errors.FieldError")});
    }
    return out;
  }();
  return table;
}

IgemmSpec igemm_spec_for(std::string_view arch, const ConvSpec& conv) {
  for (const IgemmTile& t : igemm_tiles()) {
    if (t.arch != arch) continue;
    json::Object spec = t.tile.to_json();
    spec.emplace("conv", conv.to_json());
    return IgemmSpec::from_json(spec);
  }
  std::string offered;
  json::Array archs;
  for (const IgemmTile& t : igemm_tiles()) {
    offered += (offered.empty() ? "" : ", ") + std::string(t.arch);
    archs.emplace_back(std::string(t.arch));
  }
  throw IgemmSpecError("conv_igemm_fwd tiles", std::string(arch), "an arch with a tile (" + offered + ")",
                       std::move(archs), "add a row to library/conv/igemm_tiles.json");
}

int form_wave(const IgemmSpec& spec, std::string_view arch) {
  for (const arch::MatrixOp& op : arch::get(arch).matrix) {
    if (op.op == spec.op()) return op.wave;
  }
  throw IgemmSpecError("IgemmSpec.tile.mma", spec.tile.mma,
                       "a matrix-core shape " + std::string(arch) + " has for " + spec.conv.dtype, nullptr,
                       "take " + std::string(arch) + "'s tile from library/conv/igemm_tiles.json");
}

tile::GemmConfig gemm_config(const IgemmSpec& spec) { return tile::GemmConfig{spec.op(), spec.tile}; }

}  // namespace rocke::conv
