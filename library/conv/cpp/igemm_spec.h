// conv_igemm_fwd's spec, mirroring IgemmSpec of library/conv/igemm_tiles.py:
// a ConvSpec (the problem) with a matrix-core tile (tile::Tile, its fields
// spelled beside "conv" in the JSON), read from its JSON
// (IgemmSpec.from_json), validated in Python's order (Python's
// IgemmSpecError with its field and values), and written back.
//
//   IgemmSpec s = IgemmSpec::from_json(json::parse(R"({"conv": {...}, "mma": "16x16x16", "block_m": 128, ...})"));
//   s.op()     // "mma_16x16x16_f16_f32"
//   s.gemm()   // {output pixels, filters per group, C/groups x taps}
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "library/conv/cpp/spec.h"
#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/tile/cpp/tile.h"

namespace rocke::conv {

// Python's IgemmSpecError, a family::Refusal: every error of IgemmSpec (but
// its conv's, which are ConvSpec's), spec_for and the build's arch check.
class IgemmSpecError : public family::Refusal {
 public:
  // The error of `field` for `value`; `choices` is what it allows as data
  // (a list, a limit) or null; the message says `allowed`, then `fix`.
  IgemmSpecError(const std::string& field, const json::Value& value, std::string_view allowed,
                 json::Value choices = nullptr, std::string_view fix = "")
      : family::Refusal("conv.igemm_tiles.IgemmSpecError", field, value, std::move(choices),
                        errors::worded(field, allowed, value, fix)) {}
};

struct IgemmSpec {
  ConvSpec conv;
  tile::Tile tile;
  // Ways the reduction is split (split-K); 1 writes the output, S > 1 f32
  // partial sums to a workspace.
  std::int64_t split_k = 1;
  // The reduction by filter rows, each padded to block_k (row_runs.h): vector loads for small C.
  bool row_runs = false;

  // IgemmSpec.from_json(obj): IgemmSpecError (or ConvSpec's SpecError, for
  // a bad conv or workspace).
  static IgemmSpec from_json(const json::Value& obj);
  // IgemmSpec.to_json(): the conv's JSON and the tile.
  json::Value to_json() const;

  // The matrix op id (platform/arch/mma_forms.json).
  std::string op() const { return "mma_" + tile.mma + "_" + conv.dtype + "_f32"; }
  // (M, N, K) of each group's GEMM (with row_runs, K is filter rows x block_k).
  std::array<std::int64_t, 3> gemm() const;
  // The reduction's k steps of block_k (the last one may be partial).
  std::int64_t k_steps() const { return (gemm()[2] + tile.block_k - 1) / tile.block_k; }
};

// IgemmSpec.from_json(spec).to_json(): the family's spec_json.
json::Value igemm_normalised(const json::Value& spec);

}  // namespace rocke::conv
