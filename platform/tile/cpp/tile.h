// A matrix-core tile, the C++ twin of platform/tile/tile.py: the one value
// the specs of tiled families embed (gemm::GemmSpec::tile,
// conv::IgemmSpec::tile), validated as tile.py validates it, in its order,
// with the same facts (tile.py's docstring says what is checked and why).
//
//   Tile t = Tile::of(obj.as_object(), "GemmSpec.tile", "gemm.spec.SpecError");
//   t.mma_shape()   // {16, 16, 16}
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/cpp/json/json.h"

namespace rocke::tile {

// tile.MAX_SIZE: every size is an i32 in the kernel (and int in GemmConfig).
constexpr std::int64_t kMaxSize = INT32_MAX;
// tile.FIELDS: a tile's fields in declaration order, its JSON spelling.
constexpr std::array<std::string_view, 6> kFields = {"mma", "block_m", "block_n", "block_k", "waves_m", "waves_n"};

struct Tile {
  std::string mma;  // "MxNxK", e.g. "16x16x16"
  std::int64_t block_m = 0, block_n = 0, block_k = 0;
  std::int64_t waves_m = 0, waves_n = 0;

  // Tile.of(fields, where, error): the tile of `fields` (every kFields name
  // present; others are ignored), or an errors::FieldError of Python class
  // `python_class` naming `where`.FIELD.
  static Tile of(const json::Object& fields, std::string_view where, std::string_view python_class);
  // Tile(mma, block_m, ...) in Python: validated as `of` validates, an
  // errors::FieldError naming Tile.FIELD otherwise.
  static Tile make(std::string mma, std::int64_t block_m, std::int64_t block_n, std::int64_t block_k,
                   std::int64_t waves_m, std::int64_t waves_n);
  // Tile.to_json(): kFields.
  json::Object to_json() const;

  // (M, N, K) of the matrix-core op.
  std::array<int, 3> mma_shape() const;
  // Waves of a workgroup.
  std::int64_t waves() const { return waves_m * waves_n; }
};

// tile.shapes: the "MxNxK" shapes of the f32-accumulating matrix ops (on
// `dtype` inputs, on `arch`, where given) of mma_forms.json, smallest first.
std::vector<std::string> shapes(std::optional<std::string_view> dtype = std::nullopt,
                                std::optional<std::string_view> arch = std::nullopt);

}  // namespace rocke::tile
