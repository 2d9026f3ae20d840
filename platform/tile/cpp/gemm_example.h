// platform/tile/gemm_example.py in C++, for gemm_parity_test only: the proof
// GEMM built from the tile blocks, and kernels that take the epilogue's other
// paths (bias and relu, atomic, per-element stores, the FMA main loop),
// which gemm_parity_test.py builds the same way in Python.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "platform/ir/cpp/core.h"
#include "platform/tile/cpp/gemm.h"

namespace rocke::tile::example {

// gemm_example.CONFIGS (per arch, else per generation) and TILES_128 (per arch,
// nullopt elsewhere), for input type `dtype`: platform/tile/gemm_example.json.
GemmConfig config(std::string_view arch, std::string_view dtype);
std::optional<GemmConfig> tile_128(std::string_view arch, std::string_view dtype);

// gemm_example.gemm_kernel (the kernel only).
std::unique_ptr<ir::Kernel> gemm_kernel(std::string_view arch, std::string_view dtype,
                                        std::optional<GemmConfig> cfg = std::nullopt,
                                        const std::string& a_layout = "row", const std::string& b_layout = "row");

// The example with another epilogue: "bias_relu", "atomic", "elements", "fma",
// "residual_before" or "residual_after" (gemm_parity_test.py's _variant says
// what each is).
std::unique_ptr<ir::Kernel> variant_kernel(std::string_view arch, std::string_view dtype, std::string_view mode);

// platform/tile/fp8_test.py's kernel: f8e4m3 inputs through the 16x16x32
// MFMA, 32x32x32 blocks, f32 output.
std::unique_ptr<ir::Kernel> fp8_kernel(std::string_view arch, const std::string& a_layout, const std::string& b_layout);

// platform/tile/gather_test.py's kernel: A gathered through an address
// callback (rows permuted when `runs`, else A transposed with every fifth k
// masked; every third row padding), the 128 tile, m, n, k constants.
std::unique_ptr<ir::Kernel> gather_kernel(std::string_view arch, std::string_view dtype, int m, int n, int k,
                                          bool runs);
// platform/tile/gather_test.py's B-gathered kernel: A column-major, B
// gathered with its k rows permuted and every third column (every third
// 8-column run, with `runs`) padding; `contiguous` the gather's.
std::unique_ptr<ir::Kernel> gather_b_kernel(std::string_view arch, std::string_view dtype, int m, int n, int k,
                                            const std::string& contiguous, bool runs);

}  // namespace rocke::tile::example
