// A block-level GEMM, mirroring platform/tile/gemm.py op for op: the main
// loop on matrix cores (mainloop) or FMAs (fma_mainloop), and the epilogue.
// gemm.py's docstring says how the main loop is built and why.
//
//   GemmConfig cfg{"mma_16x16x16_f16_f32", Tile::of(fields, "GemmSpec.tile", "gemm.spec.SpecError")};
//   Operands ops(a, bm, m, n, k, k, n);                // row-major A and B
//   Accumulators acc = mainloop(b, cfg, ops, scalar("f16"), row0, col0);
//   epilogue(b, acc.runs(b), c, n, m, n, row0, col0, scalar("f16"), {.inside = acc.inside, .rows = cfg.tile.block_m});
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own statement,
// in Python's order. Python's generators (runs, elements) run here when
// called; gemm.py's epilogue consumes them whole before its first op, so
// the ops come out in the same order.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/core.h"
#include "platform/ir/cpp/mma.h"
#include "platform/tile/cpp/fragments.h"
#include "platform/tile/cpp/gather.h"
#include "platform/tile/cpp/tile.h"

namespace rocke::tile {

// gemm.GemmConfig: the matrix-core main loop's op and tile (a tile::Tile
// built by Tile::of, so validated; its mma is the op's shape).
struct GemmConfig {
  std::string op;           // matrix op id: "mma_16x16x16_f16_f32"
  Tile tile;                // the block and its waves
  bool direct_lds = true;   // where the arch and both operands allow, load straight to LDS (gemm._direct)
  bool edge_units = false;  // the guarded loop's plain (not gathered) copies read 16-byte units (TileCopy)

  int threads(int wave) const;
  // errors::FieldError, with Python's facts, unless the op has a fragment
  // layout on arch generation `generation` and the tile's mma is its shape.
  void check(std::string_view generation) const;
};

// gemm.FmaConfig: the FMA main loop's block_m x block_n block, one lane per output.
struct FmaConfig {
  int block_m;
  int block_n;

  int threads() const { return block_m * block_n; }
};

// Where the problem lives: pointers, sizes (i32 values), leading dimensions
// (values or numbers) and each operand's layout, "row" or "col". With
// `a_gather`, A is gathered (gather.h): `lda` and `a_layout` are unused;
// with `b_gather`, B is (its callback takes (column, k)): `ldb` and
// `b_layout` are unused.
struct Operands {
  // errors::FieldError, with Python's facts, for a layout not in gemm.LAYOUTS.
  Operands(ir::Value* a, ir::Value* b, ir::Value* m, ir::Value* n, ir::Value* k, ir::Operand lda, ir::Operand ldb,
           std::string a_layout = "row", std::string b_layout = "row", std::optional<Gather> a_gather = std::nullopt,
           std::optional<Gather> b_gather = std::nullopt);

  ir::Value* a;
  ir::Value* b;
  ir::Value* m;
  ir::Value* n;
  ir::Value* k;
  ir::Operand lda;
  ir::Operand ldb;
  std::string a_layout;
  std::string b_layout;
  std::optional<Gather> a_gather;
  std::optional<Gather> b_gather;
};

// Output values at (row, col) of the block: one value, or a run of values in
// consecutive columns of one row.
struct Run {
  ir::Value* row;
  ir::Value* col;
  std::vector<ir::Value*> values;
};

// mainloop's accumulators (gemm._Accumulators).
struct Accumulators {
  std::vector<ir::Value*> frags;
  ir::Value* wave_row;
  ir::Value* wave_col;
  int tiles_n;
  ir::mma::Shape shape;
  const Fragment* frag;
  ir::Value* lane;
  ir::Value* inside;  // i1: the whole block lies inside M x N

  // (row, col, f32 values) of every run of this lane's accumulator elements
  // that are consecutive columns of one row, within the block.
  std::vector<Run> runs(ir::KernelBuilder& b) const;
  // (row, col, one f32 value) of every accumulator element, within the block.
  std::vector<Run> elements(ir::KernelBuilder& b) const;
  // elements() as Python's generator is consumed by a loop that makes ops of
  // its own: each element's ops, then fn's for it, element after element.
  void each_element(ir::KernelBuilder& b, const std::function<void(const Run&)>& fn) const;
};

// Accumulators (f32 fragments, one per m x n sub-tile of this wave) for the
// block at (row0, col0).
Accumulators mainloop(ir::KernelBuilder& b, const GemmConfig& cfg, const Operands& ops, const ir::Type* elem,
                      ir::Value* row0, ir::Value* col0);

// Fallback without matrix cores: lane (r, c) of the block accumulates one output.
std::vector<Run> fma_mainloop(ir::KernelBuilder& b, const FmaConfig& cfg, const Operands& ops, const ir::Type* elem,
                              ir::Value* row0, ir::Value* col0);

// gemm.ACTIVATIONS and gemm.RESIDUALS, in Python's order (an error's allowed values).
inline constexpr std::string_view kActivations[] = {"none", "relu", "relu6", "gelu_tanh", "gelu_erf"};
inline constexpr std::string_view kResiduals[] = {"before_activation", "after_activation"};

// gemm.scale_value: the f32 value (as a double) of a spec's output scale
// `text`, a decimal string; nullopt unless it is positive and finite as f32.
std::optional<double> scale_value(const std::string& text);

// gemm.check_epilogue: errors::FieldError unless `activation` is one of
// kActivations and `residual_at` one of kResiduals.
void check_epilogue(const std::string& activation, const std::string& residual_at);

// Element j's f32 addend, read when called (finish).
using Addend = std::function<ir::Value*(int)>;

// gemm.finish: the epilogue's arithmetic on f32 `values`, every family's:
// scale * (act(x + bias + residual)) or scale * (act(x + bias) + residual),
// bias and residual added only where given; a scale of 1 multiplies nothing.
std::vector<ir::Value*> finish(ir::KernelBuilder& b, std::vector<ir::Value*> values, const std::string& activation,
                               const Addend& bias, const Addend& residual, const std::string& residual_at,
                               double scale);

// epilogue's keyword arguments.
struct EpilogueOptions {
  ir::Value* bias = nullptr;                        // f32 per column
  std::string activation = "none";                  // kActivations
  ir::Value* residual = nullptr;                    // the output's type and layout (ldc included)
  std::string residual_at = "before_activation";    // kResiduals
  double scale = 1.0;                               // an f32 value (scale_value)
  bool atomic = false;                              // accumulate into f32 output (split-K)
  ir::Value* inside = nullptr;                      // Accumulators::inside: one branch, unguarded stores
  std::optional<std::int64_t> rows = std::nullopt;  // the block's rows (block_m): branch-free buffer stores at the edge
};

// Stores (or atomically adds) every output value inside the m x n output
// (gemm.epilogue): with `rows`, an edge block through buffer stores the
// hardware drops out of range, no branch per element. errors::FieldError, with Python's facts, for an unknown
// activation or residual place, or atomic output that is not f32.
void epilogue(ir::KernelBuilder& b, const std::vector<Run>& elements, ir::Value* out, ir::Operand ldc, ir::Operand m,
              ir::Operand n, ir::Value* row0, ir::Value* col0, const ir::Type* out_elem,
              const EpilogueOptions& options = {});

}  // namespace rocke::tile
