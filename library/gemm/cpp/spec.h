// The GEMM problem and its tile, mirroring library/gemm/spec.py: a spec read
// from its JSON (GemmSpec.from_json), validated field by field in Python's
// order (rocke::family::SpecError with Python's class, field and values), and written back
// (to_json). The matrix-core shapes come from platform/arch/mma_forms.json.
//
//   GemmSpec s = GemmSpec::from_json(json::parse(R"({"m":128, ..., "mma":"16x16x16", ...})"));
//   s.op()   // "mma_16x16x16_f16_f32"
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/types.h"

namespace rocke::gemm {

struct GemmSpec {
  std::int64_t m = 0, n = 0, k = 0;
  std::string dtype;  // "f16", "bf16" or "fp8"
  std::string out;    // "f16", "bf16" or "f32"
  std::string mma;    // "MxNxK", e.g. "16x16x16"
  std::int64_t block_m = 0, block_n = 0, block_k = 0;
  std::int64_t waves_m = 0, waves_n = 0;
  std::string layout_a = "row";
  std::string layout_b = "row";
  bool bias_relu = false;

  // GemmSpec.from_json(obj): rocke::family::SpecError with Python's class, field and values.
  static GemmSpec from_json(const json::Value& obj);
  // GemmSpec.to_json(): every field.
  json::Value to_json() const;

  // (M, N, K) of the matrix-core op.
  std::array<int, 3> mma_shape() const;
  // The matrix op id (mma_forms.json).
  std::string op() const { return "mma_" + mma + "_" + dtype + "_f32"; }
};

// spec.ELEM: a spec's type name -> its IR type (fp8 is f8e4m3).
const ir::Type* elem(std::string_view name);

// GemmSpec.from_json(spec).to_json(): the family's spec_json.
json::Value normalised(const json::Value& spec);

// spec.mma_shapes: the "MxNxK" shapes of the f32-accumulating matrix ops on
// `dtype` inputs that `arch` has (any arch if nullopt), smallest first.
std::vector<std::string> mma_shapes(std::string_view dtype, std::optional<std::string_view> arch = std::nullopt);

}  // namespace rocke::gemm
