// The tile blocks' C++ facts and behaviour that need no Python; byte parity
// with platform/tile is gemm_parity_test's.
#include "platform/tile/cpp/tile.h"

#include <stdexcept>
#include <string>

#include "platform/cpp/json/json.h"
#include "platform/cpp/testing/check.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/printer.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/copy.h"
#include "platform/tile/cpp/fragments.h"
#include "platform/tile/cpp/gemm.h"
#include "platform/tile/cpp/lds.h"

using namespace rocke;
using namespace rocke::tile;

// Expected values read from platform/tile/fragments.json and mma_forms.json.
ROCKE_TEST(fragments_by_layout_and_by_form) {
  const Fragment* f = by_id("mfma_32x32x16");
  CHECK(f != nullptr);
  CHECK_EQ(f->rows, 32);
  CHECK_EQ(f->groups, 2);
  CHECK_EQ(f->per_lane, 8);
  CHECK_EQ(f->c_run, 4);
  CHECK(by_id("wmma_gfx11_16x16x16")->c_run == 1);
  CHECK(by_id("mfma_8x8x4") == nullptr);
  // mma_forms.json gives (op, generation) its layout id.
  CHECK(fragment("mma_16x16x16_f16_f32", "gfx12") == by_id("wmma_gfx12_16x16x16"));
  CHECK(fragment("mma_16x16x32_bf16_f32", "gfx1250") == by_id("wmma_gfx1250_16x16x32"));
  CHECK(fragment("mma_16x16x32_fp8_f32", "gfx9") == by_id("mfma_16x16x32"));
  // No form, no fragment.
  CHECK(fragment("mma_16x16x32_f16_f32", "gfx11") == nullptr);
}

ROCKE_TEST(kmajor_sizes_and_errors) {
  const KMajor lay(128, 32, 2, 128);
  CHECK_EQ(lay.nbytes(), 8192);
  CHECK_EQ(lay.unit_elems(), 8);
  // C = 4 units a row, U = 8 a line, P = max(4, 8) = 8 lines = 16 rows.
  CHECK_EQ(lay.period_rows(), 16);
  CHECK_THROWS(std::invalid_argument, KMajor(64, 3, 2, 128),
               "KMajor: expected rows of whole 16-byte units, got 3 elements of 2 bytes");
  CHECK_THROWS(std::invalid_argument, KMajor(64, 32, 2, 96),
               "KMajor: expected a line of a power of two 16-byte units, got 96 bytes");
}

// Xors in the kernel storing offsets(row, k, steps): one offset() makes two.
static int xors(const std::vector<int>& steps) {
  ir::KernelBuilder b("t", "gfx942", {64, 1, 1});
  ir::Value* p = b.arg("p", ir::ptr("global"));
  ir::Value* row = b.thread_id(0);
  ir::Value* k = b.thread_id(1);
  const KMajor lay(16, 16, 2, 128);  // period: 8 lines of 8 units, 2 units a row: 32 rows
  for (ir::Value* at : lay.offsets(b, row, k, steps)) b.store(b.offset(p, at), at);
  const std::string text = ir::print_kernel(*b.finish());
  int n = 0;
  for (std::size_t i = text.find("arith.xor"); i != std::string::npos; i = text.find("arith.xor", i + 1)) ++n;
  return n;
}

ROCKE_TEST(offsets_a_period_apart_share_one_computation) {
  CHECK_EQ(xors({0}), 2);
  CHECK_EQ(xors({0, 32, 64}), 2);
  CHECK_EQ(xors({0, 16}), 4);
}

ROCKE_TEST(config_threads_and_errors) {
  const GemmConfig cfg{"mma_16x16x16_f16_f32", Tile::make("16x16x16", 128, 128, 32, 2, 4)};
  CHECK_EQ(cfg.threads(32), 256);
  CHECK_EQ((FmaConfig{8, 4}).threads(), 32);
  cfg.check("gfx12");
  CHECK_THROWS(errors::FieldError, (GemmConfig{"mma_32x32x16_f16_f32", cfg.tile}.check("gfx9")),
               "GemmConfig.tile.mma: expected mma_32x32x16_f16_f32's shape 32x32x16, got \"16x16x16\"");
}

ROCKE_TEST(copy_and_operand_errors) {
  ir::KernelBuilder b("t", "gfx942", {64, 1, 1});
  ir::Value* p = b.arg("p", ir::ptr("global"));
  ir::Value* i = b.arg("i", ir::scalar("i32"));
  CHECK_THROWS(errors::FieldError, Operands(p, p, i, i, i, i, i, "diag"),
               "Operands: expected a_layout to be one of row, col, got \"diag\"");
  CHECK_THROWS(errors::FieldError, TileCopy(p, i, "cols", KMajor(64, 32, 2, 128), ir::scalar("f16"), 64),
               "TileCopy: expected contiguous to be one of k, rows, got \"cols\"");
  const TileCopy copy(p, i, "rows", KMajor(64, 32, 2, 128), ir::scalar("f16"), 64);
  // 64 x 32 f16 in pairs of 8-element vectors: 128 moves, 2 per lane, 2 registers each.
  CHECK_EQ(static_cast<int>(copy.reg_types().size()), 4);
}

// The Tile's checks in tile.py's order, each naming `where`.FIELD with the
// given Python class; the engines' agreement is the specs' parity tests'.
ROCKE_TEST(tile_values_and_errors) {
  const json::Object good{{"mma", "16x16x16"}, {"block_m", 128}, {"block_n", 64},
                          {"block_k", 32},     {"waves_m", 2},   {"waves_n", 2}};
  const Tile t = Tile::of(good, "Spec.tile", "errors.errors.FieldError");
  CHECK_EQ(t.mma_shape()[2], 16);
  CHECK_EQ(t.waves(), 4);
  CHECK(json::Value(t.to_json()) == json::Value(good));
  auto with = [&](const std::string& key, json::Value value) {
    json::Object out = good;
    out[key] = std::move(value);
    return out;
  };
  CHECK_THROWS(errors::FieldError, Tile::of(with("block_m", 0), "Spec.tile", "x.Error"),
               "Spec.tile.block_m: expected a positive int, got 0");
  CHECK_THROWS(errors::FieldError, Tile::of(with("mma", "16x16"), "Spec.tile", "x.Error"),
               "Spec.tile.mma: expected a matrix-core shape MxNxK: one of 16x16x16, 16x16x32, 32x32x8, 32x32x16, got "
               "\"16x16\"");
  CHECK_THROWS(errors::FieldError, Tile::of(with("waves_n", 3), "Spec.tile", "x.Error"),
               "Spec.tile.block_n: expected a multiple of waves_n (3) x the mma's N (16) = 48, got 64");
  try {
    Tile::of(with("block_k", 8), "Spec.tile", "x.Error");
    CHECK(false);
  } catch (const errors::FieldError& e) {
    CHECK_EQ(e.python_class(), std::string("x.Error"));
    CHECK_EQ(e.field(), std::string("Spec.tile.block_k"));
    CHECK(e.allowed() == json::Value(16));
  }
  CHECK_EQ(shapes("fp8").size(), std::size_t{1});
  CHECK_EQ(shapes("f16", "gfx942")[1], std::string("32x32x8"));
}

int main() { return rocke::testing::run_all(); }
