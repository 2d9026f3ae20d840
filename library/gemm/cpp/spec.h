// The GEMM problem and its tile, mirroring library/gemm/spec.py: a spec read
// from its JSON (GemmSpec.from_json), validated field by field in Python's
// order (rocke::family::SpecError with Python's class, field and values), and written back
// (to_json). The matrix-core shapes come from platform/arch/mma_forms.json.
//
// The tile is a tile::Tile (platform/tile/cpp/tile.h), spelled in the JSON
// beside the problem's fields.
//
//   GemmSpec s = GemmSpec::from_json(json::parse(R"({"m":128, ..., "mma":"16x16x16", ...})"));
//   s.op()   // "mma_16x16x16_f16_f32"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/gemm.h"
#include "platform/tile/cpp/tile.h"

namespace rocke::gemm {

struct GemmSpec {
  std::int64_t m = 0, n = 0, k = 0;
  std::string dtype;  // "f16", "bf16" or "fp8"
  std::string out;    // "f16", "bf16" or "f32"
  tile::Tile tile;
  std::string layout_a = "row";
  std::string layout_b = "row";
  bool bias = false;                // n f32 values added
  std::string activation = "none";  // tile::kActivations
  std::string residual = "none";    // "none" or one of tile::kResiduals
  std::string scale = "1";          // a decimal string (tile::scale_value)

  // GemmSpec.from_json(obj): rocke::family::SpecError with Python's class, field and values.
  static GemmSpec from_json(const json::Value& obj);
  // GemmSpec.to_json(): every field.
  json::Value to_json() const;

  // tile.gemm.spec_epilogue's residual_at and scale.
  std::string residual_at() const { return residual == "none" ? "before_activation" : residual; }
  double scale_value() const { return tile::scale_value(scale).value_or(1.0); }

  // The matrix op id (mma_forms.json).
  std::string op() const { return "mma_" + tile.mma + "_" + dtype + "_f32"; }
};

// spec.ELEM: a spec's type name -> its IR type (fp8 is f8e4m3).
const ir::Type* elem(std::string_view name);

// GemmSpec.from_json(spec).to_json(): the family's spec_json.
json::Value normalised(const json::Value& spec);

}  // namespace rocke::gemm
