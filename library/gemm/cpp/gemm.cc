// gemm, mirroring library/gemm/gemm.py: C = A @ B on matrix cores, built
// from the tile blocks (platform/tile/cpp), one workgroup per block of C.
// The kernel takes m, n and k at run time:
//
//     gemm_<case id>(a, b, c, [bias,] m: i32, n: i32, k: i32)
#include "platform/tile/cpp/gemm.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "library/gemm/cpp/spec.h"
#include "library/gemm/family_names.h"
#include "platform/arch/cpp/arch.h"
#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/tile.h"

namespace rocke::gemm {
namespace {

using ir::Value;

// The matrix op's wave size on `arch` (its form's); SpecError if the arch lacks it.
int form_wave(const GemmSpec& spec, std::string_view arch) {
  const std::vector<std::string> have = tile::shapes(spec.dtype, arch);
  if (std::find(have.begin(), have.end(), spec.tile.mma) == have.end()) {
    std::string list;
    for (const std::string& s : have) list += (list.empty() ? "" : ", ") + s;
    json::Array shapes;
    for (const std::string& s : have) shapes.emplace_back(s);
    throw family::SpecError(
        "gemm.spec.SpecError", "GemmSpec.tile.mma", spec.tile.mma, std::move(shapes),
        errors::worded("GemmSpec.tile.mma",
                       "a matrix-core shape " + std::string(arch) + " has for " + spec.dtype + " inputs (" +
                           (list.empty() ? "none" : list) + ")",
                       spec.tile.mma, "take " + std::string(arch) + "'s tile from library/gemm/tiles.json"));
  }
  for (const arch::MatrixOp& op : arch::get(arch).matrix) {
    if (op.op == spec.op()) return op.wave;
  }
  throw std::logic_error("arch table and mma_forms.json disagree on " + spec.op());
}

// gemm.edge_units: the guarded loop reads 16-byte units where the problem is
// narrower than one block in m or n (every block an edge one).
bool edge_units(const GemmSpec& spec) { return spec.m < spec.tile.block_m || spec.n < spec.tile.block_n; }

std::unique_ptr<ir::Kernel> build(const family::Case& c) {
  const GemmSpec spec = GemmSpec::from_json(c.spec);
  const int wave = form_wave(spec, c.arch);
  const tile::GemmConfig cfg{.op = spec.op(), .tile = spec.tile, .edge_units = edge_units(spec)};
  ir::KernelBuilder b(std::string(family_names::gemm::gemm) + "_" + c.id, c.arch, {cfg.threads(wave), 1, 1}, wave);
  const ir::Type* global = ir::ptr("global");
  const ir::Type* i32 = ir::scalar("i32");
  Value* a = b.arg("a", global);
  Value* bm = b.arg("b", global);
  Value* out = b.arg("c", global);
  Value* bias = spec.bias ? b.arg("bias", global) : nullptr;
  Value* residual = spec.residual != "none" ? b.arg("residual", global) : nullptr;
  Value* m = b.arg("m", i32);
  Value* n = b.arg("n", i32);
  Value* k = b.arg("k", i32);
  Value* lda = spec.layout_a == "row" ? k : m;
  Value* ldb = spec.layout_b == "row" ? n : k;
  const tile::Operands ops(a, bm, m, n, k, lda, ldb, spec.layout_a, spec.layout_b);
  Value* by = b.block_id(1);
  Value* row0 = b.mul(by, spec.tile.block_m);
  Value* bx = b.block_id(0);
  Value* col0 = b.mul(bx, spec.tile.block_n);
  const tile::Accumulators acc = tile::mainloop(b, cfg, ops, elem(spec.dtype), row0, col0);
  const std::vector<tile::Run> runs = acc.runs(b);
  epilogue(b, runs, out, n, m, n, row0, col0, elem(spec.out),
           {.bias = bias,
            .activation = spec.activation,
            .residual = residual,
            .residual_at = spec.residual_at(),
            .scale = spec.scale_value(),
            .inside = acc.inside,
            .rows = cfg.tile.block_m});
  return b.finish();
}

const family::Registration kRegistration({
    .name = family_names::gemm::gemm,
    .build = &build,
    .spec_json = &normalised,
});

}  // namespace
}  // namespace rocke::gemm
