#include "platform/tile/cpp/gemm_example.h"

#include <cstddef>
#include <stdexcept>
#include <utility>

#include "platform/arch/cpp/arch.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/gemm_example_data.h"

namespace rocke::tile::example {

namespace {

using ir::Value;

std::string op(std::string_view shape, std::string_view dtype) {
  return "mma_" + std::string(shape) + "_" + std::string(dtype) + "_f32";
}

const ir::Type* elem_of(std::string_view dtype) {
  if (dtype != "f16" && dtype != "bf16")
    throw std::invalid_argument("gemm_example: dtype f16 or bf16, got " + std::string(dtype));
  return ir::scalar(dtype);
}

// The GemmConfig of the row of `rows` keyed `key` (an arch or a generation),
// for input type `dtype` (gemm_example._config); nullopt without one.
template <typename Row, std::size_t N>
std::optional<GemmConfig> lookup(const Row (&rows)[N], std::string_view key, std::string_view dtype) {
  for (const Row& r : rows) {
    if (r.key == key) return GemmConfig{op(r.mma, dtype), r.block_m, r.block_n, r.block_k, r.waves_m, r.waves_n};
  }
  return std::nullopt;
}

}  // namespace

GemmConfig config(std::string_view arch, std::string_view dtype) {
  if (auto cfg = lookup(data::gemm_example::kByArch, arch, dtype)) return *cfg;
  const std::string_view generation = arch::get(arch).generation;
  if (auto cfg = lookup(data::gemm_example::kByGeneration, generation, dtype)) return *cfg;
  throw std::invalid_argument("gemm_example: no tile for " + std::string(arch) + " or its generation " +
                              std::string(generation) + " in platform/tile/gemm_example.json");
}

std::optional<GemmConfig> tile_128(std::string_view arch, std::string_view dtype) {
  return lookup(data::gemm_example::kTiles128, arch, dtype);
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
  Value* row0 = b.mul(by, c.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, c.block_n);
  const Operands ops(a, bm, m, n, k, a_layout == "row" ? k : m, b_layout == "row" ? n : k, a_layout, b_layout);
  const Accumulators acc = mainloop(b, c, ops, elem, row0, col0);
  const std::vector<Run> runs = acc.runs(b);
  epilogue(b, runs, out, n, m, n, row0, col0, elem, {.inside = acc.inside, .rows = c.block_m});
  return b.finish();
}

std::unique_ptr<ir::Kernel> variant_kernel(std::string_view arch, std::string_view dtype, std::string_view mode) {
  const ir::Type* elem = elem_of(dtype);
  const arch::Arch& info = arch::get(arch);
  const bool fma = mode == "fma";
  const GemmConfig cfg = fma ? GemmConfig{std::nullopt, 8, 8, 1} : config(arch, dtype);
  ir::KernelBuilder b("gemm_" + std::string(mode) + "_" + std::string(dtype) + "_" + std::string(arch), arch,
                      {cfg.threads(info.wave_sizes[0]), 1, 1});
  const ir::Type* global = ir::ptr("global");
  const ir::Type* i32 = ir::scalar("i32");
  Value* a = b.arg("a", global);
  Value* bm = b.arg("b", global);
  Value* out = b.arg("c", global);
  Value* bias = b.arg("bias", global);
  Value* m = b.arg("m", i32);
  Value* n = b.arg("n", i32);
  Value* k = b.arg("k", i32);
  Value* by = b.block_id(1);
  Value* row0 = b.mul(by, cfg.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, cfg.block_n);
  const Operands ops(a, bm, m, n, k, k, n);
  if (fma) {
    const std::vector<Run> elements = fma_mainloop(b, cfg, ops, elem, row0, col0);
    epilogue(b, elements, out, n, m, n, row0, col0, elem, {.bias = bias, .activation = "relu", .rows = cfg.block_m});
    return b.finish();
  }
  const Accumulators acc = mainloop(b, cfg, ops, elem, row0, col0);
  if (mode == "bias_relu") {
    const std::vector<Run> runs = acc.runs(b);
    epilogue(b, runs, out, n, m, n, row0, col0, elem,
             {.bias = bias, .activation = "relu", .inside = acc.inside, .rows = cfg.block_m});
  } else if (mode == "atomic") {
    const std::vector<Run> runs = acc.runs(b);
    epilogue(b, runs, out, n, m, n, row0, col0, ir::scalar("f32"),
             {.bias = bias, .atomic = true, .inside = acc.inside, .rows = cfg.block_m});
  } else if (mode == "elements") {
    const std::vector<Run> elements = acc.elements(b);
    epilogue(b, elements, out, n, m, n, row0, col0, elem, {.activation = "relu", .rows = cfg.block_m});
  } else {
    throw std::invalid_argument("variant_kernel: mode bias_relu, atomic, elements or fma, got " + std::string(mode));
  }
  return b.finish();
}

std::unique_ptr<ir::Kernel> fp8_kernel(std::string_view arch, const std::string& a_layout,
                                       const std::string& b_layout) {
  const GemmConfig cfg{"mma_16x16x32_fp8_f32", 32, 32, 32, 2, 2};
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
  Value* row0 = b.mul(by, cfg.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, cfg.block_n);
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
  Value* row0 = b.mul(by, cfg.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, cfg.block_n);
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
  Value* row0 = b.mul(by, cfg.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, cfg.block_n);
  const Accumulators acc = mainloop(b, cfg, ops, elem, row0, col0);
  const std::vector<Run> out = acc.runs(b);
  epilogue(b, out, c, n, ops.m, ops.n, row0, col0, elem, {.inside = acc.inside});
  return b.finish();
}

}  // namespace rocke::tile::example
