#include "platform/tile/cpp/gemm_example.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "platform/arch/cpp/arch.h"
#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/gemm_example_data.h"

namespace rocke::tile::example {

namespace {

using ir::Value;

// gemm_example.ELEMS, in its order (an error's allowed values).
constexpr std::string_view kDtypes[] = {"f16", "bf16"};
// variant_kernel's modes (gemm_parity_test.MODES).
constexpr std::string_view kModes[] = {"bias_relu", "atomic", "elements", "fma", "residual_before", "residual_after"};

const ir::Type* elem_of(std::string_view dtype) {
  if (std::find(std::begin(kDtypes), std::end(kDtypes), dtype) == std::end(kDtypes)) {
    throw errors::FieldError(errors::kFieldError, "gemm_kernel.dtype", std::string(dtype), json::Array{"f16", "bf16"},
                             errors::worded("gemm_kernel.dtype", "one of f16, bf16", std::string(dtype)));
  }
  return ir::scalar(dtype);
}

// A table of gemm_example.json: each row's key (an arch or a generation)
// and tile, built once (gemm_example._table).
struct Row {
  std::string_view key;
  Tile tile;
};

template <typename Data, std::size_t N>
std::vector<Row> table(const Data (&rows)[N], std::string_view name) {
  std::vector<Row> out;
  for (const Data& r : rows) {
    const json::Object fields{{"mma", std::string(r.mma)}, {"block_m", r.block_m}, {"block_n", r.block_n},
                              {"block_k", r.block_k},      {"waves_m", r.waves_m}, {"waves_n", r.waves_n}};
    const std::string where = "gemm_example.json: " + std::string(name) + "[" + std::to_string(out.size()) + "]";
    out.push_back(Row{r.key, Tile::of(fields, where, errors::kFieldError)});
  }
  return out;
}

// CONFIGS: by_generation's rows, then by_arch's (one replacing a row of
// the same key in its place), as Python's {**by_generation, **by_arch}.
const std::vector<Row>& configs() {
  static const std::vector<Row> rows = [] {
    std::vector<Row> out = table(data::gemm_example::kByGeneration, "by_generation");
    for (Row& r : table(data::gemm_example::kByArch, "by_arch")) {
      auto same = std::find_if(out.begin(), out.end(), [&](const Row& o) { return o.key == r.key; });
      if (same == out.end()) {
        out.push_back(std::move(r));
      } else {
        *same = std::move(r);
      }
    }
    return out;
  }();
  return rows;
}

const std::vector<Row>& tiles_128() {
  static const std::vector<Row> rows = table(data::gemm_example::kTiles128, "tiles_128");
  return rows;
}

// The GemmConfig of the row of `rows` keyed `key`, for input type `dtype`
// (gemm_example._config: the matrix op of the tile's shape); nullopt without one.
std::optional<GemmConfig> lookup(const std::vector<Row>& rows, std::string_view key, std::string_view dtype) {
  for (const Row& r : rows) {
    if (r.key == key) return GemmConfig{"mma_" + r.tile.mma + "_" + std::string(dtype) + "_f32", r.tile};
  }
  return std::nullopt;
}

}  // namespace

GemmConfig config(std::string_view arch, std::string_view dtype) {
  const std::string_view generation = arch::get(arch).generation;
  for (std::string_view key : {arch, generation}) {
    if (auto cfg = lookup(configs(), key, dtype)) return *cfg;
  }
  json::Array keys;
  std::string listed;
  for (const Row& r : configs()) {
    keys.emplace_back(std::string(r.key));
    listed += (listed.empty() ? "" : ", ") + std::string(r.key);
  }
  throw errors::FieldError(
      errors::kFieldError, "arch", std::string(arch), std::move(keys),
      errors::worded("arch", "an arch or generation with a row in platform/tile/gemm_example.json (" + listed + ")",
                     std::string(arch), "its generation " + std::string(generation) + " has none either"));
}

std::optional<GemmConfig> tile_128(std::string_view arch, std::string_view dtype) {
  return lookup(tiles_128(), arch, dtype);
}

std::unique_ptr<ir::Kernel> gemm_kernel(std::string_view arch, std::string_view dtype, std::optional<GemmConfig> cfg,
                                        const std::string& a_layout, const std::string& b_layout) {
  const ir::Type* elem = elem_of(dtype);
  const arch::Arch& info = arch::get(arch);
  const GemmConfig c = cfg ? *cfg : config(arch, dtype);
  ir::KernelBuilder b("gemm_" + std::string(dtype) + "_" + std::string(arch), arch,
                      {c.threads(info.wave_sizes[0]), 1, 1});
  const ir::Type* global = ir::ptr("global");
  const ir::Type* i32 = ir::scalar("i32");
  Value* a = b.arg("a", global);
  Value* bm = b.arg("b", global);
  Value* out = b.arg("c", global);
  Value* m = b.arg("m", i32);
  Value* n = b.arg("n", i32);
  Value* k = b.arg("k", i32);
  Value* by = b.block_id(1);
  Value* row0 = b.mul(by, c.tile.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, c.tile.block_n);
  const Operands ops(a, bm, m, n, k, a_layout == "row" ? k : m, b_layout == "row" ? n : k, a_layout, b_layout);
  const Accumulators acc = mainloop(b, c, ops, elem, row0, col0);
  const std::vector<Run> runs = acc.runs(b);
  epilogue(b, runs, out, n, m, n, row0, col0, elem, {.inside = acc.inside, .rows = c.tile.block_m});
  return b.finish();
}

std::unique_ptr<ir::Kernel> variant_kernel(std::string_view arch, std::string_view dtype, std::string_view mode) {
  if (std::find(std::begin(kModes), std::end(kModes), mode) == std::end(kModes)) {
    throw errors::FieldError(
        errors::kFieldError, "variant_kernel.mode", std::string(mode),
        json::Array{"bias_relu", "atomic", "elements", "fma", "residual_before", "residual_after"},
        errors::worded("variant_kernel.mode",
                       "one of bias_relu, atomic, elements, fma, residual_before, residual_after", std::string(mode)));
  }
  const ir::Type* elem = elem_of(dtype);
  const arch::Arch& info = arch::get(arch);
  const FmaConfig fma{8, 8};
  const std::optional<GemmConfig> cfg = mode == "fma" ? std::nullopt : std::optional(config(arch, dtype));
  const std::int64_t block_m = cfg ? cfg->tile.block_m : fma.block_m;
  const std::int64_t block_n = cfg ? cfg->tile.block_n : fma.block_n;
  ir::KernelBuilder b("gemm_" + std::string(mode) + "_" + std::string(dtype) + "_" + std::string(arch), arch,
                      {cfg ? cfg->threads(info.wave_sizes[0]) : fma.threads(), 1, 1});
  const ir::Type* global = ir::ptr("global");
  const ir::Type* i32 = ir::scalar("i32");
  Value* a = b.arg("a", global);
  Value* bm = b.arg("b", global);
  Value* out = b.arg("c", global);
  Value* bias = b.arg("bias", global);
  Value* residual = mode.starts_with("residual_") ? b.arg("residual", global) : nullptr;
  Value* m = b.arg("m", i32);
  Value* n = b.arg("n", i32);
  Value* k = b.arg("k", i32);
  Value* by = b.block_id(1);
  Value* row0 = b.mul(by, block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, block_n);
  const Operands ops(a, bm, m, n, k, k, n);
  if (!cfg) {
    const std::vector<Run> elements = fma_mainloop(b, fma, ops, elem, row0, col0);
    epilogue(b, elements, out, n, m, n, row0, col0, elem, {.bias = bias, .activation = "relu", .rows = block_m});
    return b.finish();
  }
  const Accumulators acc = mainloop(b, *cfg, ops, elem, row0, col0);
  if (mode == "bias_relu") {
    const std::vector<Run> runs = acc.runs(b);
    epilogue(b, runs, out, n, m, n, row0, col0, elem,
             {.bias = bias, .activation = "relu", .inside = acc.inside, .rows = block_m});
  } else if (mode == "atomic") {
    const std::vector<Run> runs = acc.runs(b);
    epilogue(b, runs, out, n, m, n, row0, col0, ir::scalar("f32"),
             {.bias = bias, .atomic = true, .inside = acc.inside, .rows = block_m});
  } else if (mode == "residual_before") {
    const std::vector<Run> runs = acc.runs(b);
    epilogue(b, runs, out, n, m, n, row0, col0, elem,
             {.bias = bias,
              .activation = "gelu_erf",
              .residual = residual,
              .scale = 0.5,
              .inside = acc.inside,
              .rows = block_m});
  } else if (mode == "residual_after") {
    const std::vector<Run> elements = acc.elements(b);
    epilogue(b, elements, out, n, m, n, row0, col0, elem,
             {.activation = "gelu_tanh", .residual = residual, .residual_at = "after_activation"});
  } else {  // elements
    const std::vector<Run> elements = acc.elements(b);
    epilogue(b, elements, out, n, m, n, row0, col0, elem, {.activation = "relu", .rows = block_m});
  }
  return b.finish();
}

std::unique_ptr<ir::Kernel> fp8_kernel(std::string_view arch, const std::string& a_layout,
                                       const std::string& b_layout) {
  const GemmConfig cfg{"mma_16x16x32_fp8_f32", Tile::make("16x16x32", 32, 32, 32, 2, 2)};
  ir::KernelBuilder b("g", arch, {cfg.threads(64), 1, 1});
  const ir::Type* global = ir::ptr("global");
  const ir::Type* i32 = ir::scalar("i32");
  Value* a = b.arg("a", global);
  Value* bm = b.arg("b", global);
  Value* c = b.arg("c", global);
  Value* m = b.arg("m", i32);
  Value* n = b.arg("n", i32);
  Value* k = b.arg("k", i32);
  Value* by = b.block_id(1);
  Value* row0 = b.mul(by, cfg.tile.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, cfg.tile.block_n);
  const Operands ops(a, bm, m, n, k, a_layout == "row" ? k : m, b_layout == "row" ? n : k, a_layout, b_layout);
  const Accumulators acc = mainloop(b, cfg, ops, ir::scalar("f8e4m3"), row0, col0);
  const std::vector<Run> runs = acc.runs(b);
  epilogue(b, runs, c, n, m, n, row0, col0, ir::scalar("f32"), {.inside = acc.inside});
  return b.finish();
}

std::unique_ptr<ir::Kernel> gather_kernel(std::string_view arch, std::string_view dtype, int m, int n, int k,
                                          bool runs) {
  const ir::Type* elem = elem_of(dtype);
  // NOLINTNEXTLINE(bugprone-unchecked-optional-access): the examples' archs and dtypes all have a 128 tile
  const GemmConfig cfg = *tile_128(arch, dtype);
  ir::KernelBuilder b("gather_" + std::string(arch), arch, {cfg.threads(arch::get(arch).wave_sizes[0]), 1, 1});
  const ir::Type* global = ir::ptr("global");
  const ir::Type* i32 = ir::scalar("i32");
  Value* a = b.arg("a", global);
  Value* bm = b.arg("b", global);
  Value* c = b.arg("c", global);
  constexpr int kStride = 7;  // gather_test.STRIDE
  auto address = [m, k, runs](ir::KernelBuilder& b, Value* row, Value* kk) -> std::pair<Value*, Value*> {
    Value* third = b.rem(row, 3);
    Value* valid = b.cmp("ne", third, 0);  // every third row of A is "padding"
    if (runs) {                            // A's rows permuted: a 16-byte run of k stays one run
      Value* moved = b.mul(row, kStride);
      Value* stored = b.rem(moved, m);
      Value* line = b.mul(stored, k);
      return {b.add(line, kk), valid};
    }
    Value* line = b.mul(kk, m);  // A stored transposed; k = 5j masked too
    Value* index = b.add(line, row);
    Value* fifth = b.rem(kk, 5);
    Value* kept = b.cmp("ne", fifth, 0);
    return {index, b.and_(valid, kept)};
  };
  Value* mv = b.const_(m, i32);
  Value* nv = b.const_(n, i32);
  Value* kv = b.const_(k, i32);
  const Operands ops(a, bm, mv, nv, kv, 0, n, "row", "row", Gather{address, runs});
  Value* by = b.block_id(1);
  Value* row0 = b.mul(by, cfg.tile.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, cfg.tile.block_n);
  const Accumulators acc = mainloop(b, cfg, ops, elem, row0, col0);
  const std::vector<Run> out = acc.runs(b);
  epilogue(b, out, c, n, ops.m, ops.n, row0, col0, elem, {.inside = acc.inside});
  return b.finish();
}

std::unique_ptr<ir::Kernel> gather_b_kernel(std::string_view arch, std::string_view dtype, int m, int n, int k,
                                            const std::string& contiguous, bool runs) {
  const ir::Type* elem = elem_of(dtype);
  // NOLINTNEXTLINE(bugprone-unchecked-optional-access): the examples' archs and dtypes all have a 128 tile
  const GemmConfig cfg = *tile_128(arch, dtype);
  ir::KernelBuilder b("gather_b_" + std::string(arch), arch, {cfg.threads(arch::get(arch).wave_sizes[0]), 1, 1});
  const ir::Type* global = ir::ptr("global");
  const ir::Type* i32 = ir::scalar("i32");
  Value* a = b.arg("a", global);
  Value* bm = b.arg("b", global);
  Value* c = b.arg("c", global);
  constexpr int kStride = 7;  // gather_test.STRIDE
  auto address = [n, k, runs](ir::KernelBuilder& b, Value* col, Value* kk) -> std::pair<Value*, Value*> {
    Value* moved = b.mul(kk, kStride);
    Value* stored = b.rem(moved, k);
    Value* line = b.mul(stored, n);
    Value* index = b.add(line, col);
    Value* block = runs ? b.div(col, 8) : col;  // runs share their validity
    Value* third = b.rem(block, 3);
    return {index, b.cmp("ne", third, 0)};  // every third column (or run) of B is "padding"
  };
  Value* mv = b.const_(m, i32);
  Value* nv = b.const_(n, i32);
  Value* kv = b.const_(k, i32);
  const Operands ops(a, bm, mv, nv, kv, m, 0, "col", "row", std::nullopt, Gather{address, runs, contiguous});
  Value* by = b.block_id(1);
  Value* row0 = b.mul(by, cfg.tile.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, cfg.tile.block_n);
  const Accumulators acc = mainloop(b, cfg, ops, elem, row0, col0);
  const std::vector<Run> out = acc.runs(b);
  epilogue(b, out, c, n, ops.m, ops.n, row0, col0, elem, {.inside = acc.inside});
  return b.finish();
}

}  // namespace rocke::tile::example
