// Facts stated by platform/arch/SOURCES.md and arch.py's docstring, not read
// from the generated header; arch_parity_test compares every field with Python.
#include "platform/arch/cpp/arch.h"

#include <algorithm>
#include <string>

#include "platform/cpp/testing/check.h"

using rocke::arch::get;
using rocke::arch::UnknownArchError;

ROCKE_TEST(gfx942) {
  const auto& a = get("gfx942");
  CHECK_EQ(a.name, std::string_view("gfx942"));
  CHECK_EQ(a.generation, std::string_view("gfx9"));
  CHECK_EQ(a.cus, 304);
  CHECK_EQ(a.xcds, 8);
  CHECK_EQ(a.wave_sizes.size(), 1u);
  CHECK_EQ(a.wave_sizes[0], 64);
  CHECK_EQ(a.lds_bytes, 65536);
  CHECK_EQ(a.vgprs, 512);
  CHECK_EQ(a.agprs, 256);
  CHECK_EQ(a.min_llvm, std::string_view("llvm20"));
  const bool has_f16 = std::any_of(a.matrix.begin(), a.matrix.end(), [](const auto& m) {
    return m.op == "mma_16x16x16_f16_f32" && m.m == 16 && m.n == 16 && m.k == 16 && m.wave == 64;
  });
  CHECK(has_f16);
}

ROCKE_TEST(gfx1250_is_wave32_only_and_new) {
  const auto& a = get("gfx1250");
  CHECK_EQ(a.wave_sizes.size(), 1u);
  CHECK_EQ(a.wave_sizes[0], 32);
  CHECK_EQ(a.min_llvm, std::string_view("llvm22"));
  CHECK(std::find(a.flavors.begin(), a.flavors.end(), "llvm20") == a.flavors.end());
}

ROCKE_TEST(every_arch_sorted_and_its_ops_run_in_its_wave_sizes) {
  const auto& all = rocke::arch::all();
  CHECK_EQ(all.size(), 7u);
  for (size_t i = 1; i < all.size(); ++i) CHECK(all[i - 1].name < all[i].name);
  for (const auto& a : all) {
    CHECK(!a.matrix.empty());
    CHECK_EQ(a.waves_per_eu.size(), 2u);
    for (const auto& m : a.matrix) {
      CHECK(std::find(a.wave_sizes.begin(), a.wave_sizes.end(), m.wave) != a.wave_sizes.end());
    }
    for (size_t i = 1; i < a.matrix.size(); ++i) CHECK(a.matrix[i - 1].op < a.matrix[i].op);
  }
}

ROCKE_TEST(unknown_arch_names_the_known_ones) {
  const std::string known = "gfx1100, gfx1151, gfx1201, gfx1250, gfx90a, gfx942, gfx950";
  CHECK_THROWS(UnknownArchError, get("gfx9422"),
               "arch: expected one of " + known + ", got \"gfx9422\". Did you mean gfx942?");
  CHECK_THROWS(UnknownArchError, get("sm_90"), "arch: expected one of " + known + ", got \"sm_90\".");
}

int main() { return rocke::testing::run_all(); }
