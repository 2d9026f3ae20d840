// For gemm_parity_test: {"kernels": {name: .rk text}, "llvm": {name@flavor:
// LLVM IR}, "errors": {probe: [facts, message] or null}} of the tile blocks
// in C++. gemm_parity_test.py builds every kernel with gemm_example.py (or
// the same tile.gemm calls) and makes every probe in Python; a kernel that
// fails to build is "error: " and its error's [facts, message] as JSON, so
// both must fail alike too (errors.check_parity).
#include <array>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform/arch/cpp/arch.h"
#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/printer.h"
#include "platform/ir/cpp/types.h"
#include "platform/lower/cpp/lower.h"
#include "platform/tile/cpp/copy.h"
#include "platform/tile/cpp/gather.h"
#include "platform/tile/cpp/gemm.h"
#include "platform/tile/cpp/gemm_example.h"
#include "platform/tile/cpp/lds.h"
#include "platform/tile/cpp/tile.h"

namespace rocke::tile {
namespace {

using Make = std::function<std::unique_ptr<ir::Kernel>()>;

// An error as the test reads it: [facts, message] (errors.check_parity).
json::Value refusal(const errors::FieldError& e) { return json::Array{e.facts(), e.what()}; }

// The kernel's .rk text, or "error: " and its error's refusal.
std::string text(const Make& make, json::Object& llvm, const std::string& name,
                 const std::vector<std::string_view>& flavors) {
  std::unique_ptr<ir::Kernel> kernel;
  try {
    kernel = make();
  } catch (const errors::FieldError& e) {
    return "error: " + json::canonical(refusal(e));
  }
  for (std::string_view flavor : flavors) llvm[name + "@" + std::string(flavor)] = lower::lower(*kernel, flavor);
  return ir::print_kernel(*kernel);
}

// The probe's refusal, or null if it raises nothing.
json::Value error(const std::function<void()>& probe) {
  try {
    probe();
  } catch (const errors::FieldError& e) {
    return refusal(e);
  }
  return nullptr;
}

json::Object errors() {
  ir::KernelBuilder b("probe", "gfx942", {256, 1, 1});
  ir::Value* p = b.arg("p", ir::ptr("global"));
  ir::Value* i = b.arg("i", ir::scalar("i32"));
  const ir::Type* f16 = ir::scalar("f16");
  auto check = [](GemmConfig cfg, std::string_view generation) { return error([&] { cfg.check(generation); }); };
  const std::vector<Run> none;
  auto gather_rows = [](ir::KernelBuilder&, ir::Value* row, ir::Value*) {
    return std::pair<ir::Value*, ir::Value*>{row, nullptr};
  };
  return {
      {"check_fp8_generation", check({"mma_16x16x32_fp8_f32", Tile::make("16x16x32", 32, 32, 32, 2, 2)}, "gfx12")},
      {"check_generation", check({"mma_16x16x32_f16_f32", Tile::make("16x16x32", 32, 32, 32, 2, 2)}, "gfx11")},
      {"check_unknown_op", check({"mma_8x8x8_f16_f32", Tile::make("16x16x16", 32, 32, 32, 2, 2)}, "gfx9")},
      {"check_mma", check({"mma_32x32x16_bf16_f32", Tile::make("16x16x16", 64, 64, 16, 2, 2)}, "gfx9")},
      {"check_good", check({"mma_16x16x16_f16_f32", Tile::make("16x16x16", 32, 32, 16, 2, 2)}, "gfx12")},
      {"tile_block_m", error([] { Tile::make("16x16x16", 48, 32, 16, 2, 2); })},
      {"example_dtype", error([] { example::gemm_kernel("gfx942", "f32"); })},
      {"operands_a", error([&] { Operands(p, p, i, i, i, i, i, "diag"); })},
      {"operands_b", error([&] { Operands(p, p, i, i, i, i, i, "row", "Row"); })},
      {"epilogue_activation", error([&] { epilogue(b, none, p, i, i, i, i, i, f16, {.activation = "gelu"}); })},
      {"epilogue_residual_at", error([&] { epilogue(b, none, p, i, i, i, i, i, f16, {.residual_at = "middle"}); })},
      {"epilogue_atomic", error([&] { epilogue(b, none, p, i, i, i, i, i, f16, {.atomic = true}); })},
      {"kmajor_row", error([&] { KMajor(64, 3, 2, 128); })},
      {"kmajor_line", error([&] { KMajor(64, 32, 2, 96); })},
      {"kmajor_unit", error([&] { KMajor(64, 32, 2, 120); })},
      {"copy_contiguous", error([&] { TileCopy(p, i, "cols", KMajor(64, 32, 2, 128), f16, 256); })},
      {"copy_rows", error([&] { TileCopy(p, i, "rows", KMajor(12, 32, 2, 128), f16, 256); })},
      {"copy_threads", error([&] { TileCopy(p, i, "k", KMajor(16, 16, 2, 128), f16, 48); })},
      {"copy_runs", error([&] { TileCopy(p, i, "k", KMajor(64, 32, 2, 128), f16, 256, false, 4, 0); })},
      {"gather_none", error([&] { GatherCopy(p, 0, "k", KMajor(64, 32, 2, 128), f16, 256, std::nullopt); })},
      {"gather_rows",
       error([&] { GatherCopy(p, 0, "rows", KMajor(64, 32, 2, 128), f16, 256, Gather{gather_rows, true}); })},
      {"gather_k",
       error([&] { GatherCopy(p, 0, "k", KMajor(64, 32, 2, 128), f16, 256, Gather{gather_rows, true, "rows"}); })},
      {"rowxor_row", error([&] { RowXor(32, 96, 2, 256, 64); })},
      {"rowxor_run", error([&] { RowXor(32, 128, 2, 256, 24); })},
      {"direct_rounds", error([&] { DirectCopy(p, i, KMajor(16, 32, 2, 256), f16, 256); })},
      {"gather_threads",
       error([&] { GatherCopy(p, 0, "k", KMajor(16, 16, 2, 128), f16, 48, Gather{gather_rows, true}); })},
  };
}

}  // namespace
}  // namespace rocke::tile

int main() {
  using namespace rocke;
  using tile::example::gemm_kernel;
  json::Object kernels, llvm;
  for (const arch::Arch& a : arch::all()) {
    const std::string name(a.name);
    for (std::string dtype : {"f16", "bf16"}) {
      // Lowered: f16, row-major operands, every flavor that knows the arch.
      const std::vector<std::string_view> flavors = dtype == "f16" ? a.flavors : std::vector<std::string_view>{};
      for (std::string la : {"row", "col"}) {
        for (std::string lb : {"row", "col"}) {
          const auto& lowered = la == "row" && lb == "row" ? flavors : std::vector<std::string_view>{};
          const std::string key = name + "/" + dtype + "/" + la + "_" + lb;
          kernels[key + "/small"] = tile::text([&] { return gemm_kernel(a.name, dtype, std::nullopt, la, lb); }, llvm,
                                               key + "/small", lowered);
          if (auto cfg = tile::example::tile_128(a.name, dtype)) {
            kernels[key + "/128"] =
                tile::text([&] { return gemm_kernel(a.name, dtype, cfg, la, lb); }, llvm, key + "/128", lowered);
            // The register path where the direct-to-LDS one is the default (gfx950).
            tile::GemmConfig registers = *cfg;
            registers.direct_lds = false;
            kernels[key + "/128_registers"] = tile::text([&] { return gemm_kernel(a.name, dtype, registers, la, lb); },
                                                         llvm, key + "/128_registers", lowered);
          }
        }
      }
      for (std::string mode : {"bias_relu", "atomic", "elements", "fma", "residual_before", "residual_after"}) {
        const std::string key = name + "/" + dtype + "/" + mode;
        const std::vector<std::string_view> oldest =
            dtype == "f16" ? std::vector<std::string_view>{a.min_llvm} : std::vector<std::string_view>{};
        kernels[key] =
            tile::text([&] { return tile::example::variant_kernel(a.name, dtype, mode); }, llvm, key, oldest);
      }
    }
  }
  for (const arch::Arch& a : arch::all()) {
    for (std::string la : {"row", "col"}) {
      for (std::string lb : {"row", "col"}) {
        const std::string key = std::string(a.name) + "/fp8/" + la + "_" + lb;
        const auto& lowered = la == "row" && lb == "row" ? a.flavors : std::vector<std::string_view>{};
        kernels[key] = tile::text([&] { return tile::example::fp8_kernel(a.name, la, lb); }, llvm, key, lowered);
      }
    }
  }
  // gather_test.py's kernels: each arch and type it runs, both shapes, both load paths.
  const std::vector<std::pair<std::string_view, std::string>> gathered = {
      {"gfx942", "f16"}, {"gfx950", "bf16"}, {"gfx1201", "bf16"}, {"gfx1250", "f16"}};
  const std::vector<std::array<int, 3>> shapes = {{200, 130, 72}, {37, 45, 29}};
  for (const auto& [arch_name, dtype] : gathered) {
    const arch::Arch& a = arch::get(arch_name);
    for (const auto& [m, n, k] : shapes) {
      for (bool runs : {true, false}) {
        const std::string key = std::string(arch_name) + "/" + dtype + "/gather/" + std::to_string(m) + "x" +
                                std::to_string(n) + "x" + std::to_string(k) + (runs ? "/runs" : "/elements");
        const std::vector<std::string_view> lowered = {a.min_llvm};
        kernels[key] = tile::text([&] { return tile::example::gather_kernel(arch_name, dtype, m, n, k, runs); }, llvm,
                                  key, lowered);
      }
    }
  }
  // gather_test.py's B-gathered kernels (A column-major): its arch and type pairs and shapes.
  const std::vector<std::pair<std::string_view, std::string>> b_gathered = {{"gfx942", "bf16"}, {"gfx1201", "f16"}};
  const std::vector<std::array<int, 3>> b_shapes = {{136, 144, 72}};
  const std::vector<std::pair<std::string, bool>> b_gathers = {{"k", false}, {"rows", false}, {"rows", true}};
  for (const auto& [arch_name, dtype] : b_gathered) {
    const arch::Arch& a = arch::get(arch_name);
    for (const auto& [m, n, k] : b_shapes) {
      for (const auto& [contiguous, runs] : b_gathers) {
        const std::string key = std::string(arch_name) + "/" + dtype + "/gather_b/" + std::to_string(m) + "x" +
                                std::to_string(n) + "x" + std::to_string(k) + "/" + contiguous +
                                (runs ? "_runs" : "_elements");
        const std::vector<std::string_view> lowered = {a.min_llvm};
        kernels[key] =
            tile::text([&] { return tile::example::gather_b_kernel(arch_name, dtype, m, n, k, contiguous, runs); },
                       llvm, key, lowered);
      }
    }
  }
  json::Object out = {{"kernels", std::move(kernels)}, {"llvm", std::move(llvm)}, {"errors", tile::errors()}};
  std::cout << json::canonical(out) << "\n";
  return 0;
}
