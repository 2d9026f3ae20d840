// The flavor and intrinsic tables, read through the generated headers, with
// the examples platform/arch/flavor_facts.py and mma_forms.py document.
#include "platform/lower/cpp/flavors.h"

#include <stdexcept>
#include <string>

#include "platform/cpp/testing/check.h"

using namespace rocke::lower;

ROCKE_TEST(flavors_oldest_first) {
  std::string names;
  for (const Flavor& f : flavors()) names += std::string(f.name) + " ";
  CHECK_EQ(names, "llvm20 llvm22 llvm23 llvm24 ");
  CHECK(find_flavor("llvm19") == nullptr);
}

ROCKE_TEST(triples) {
  // flavor_facts.py: FLAVORS["llvm24"].triple("gfx950") is "amdgpu9.50-amd-amdhsa".
  CHECK_EQ(find_flavor("llvm24")->triple("gfx950"), "amdgpu9.50-amd-amdhsa");
  CHECK_EQ(find_flavor("llvm24")->triple("gfx1250"), "amdgpu12.50-amd-amdhsa");
  CHECK_EQ(find_flavor("llvm22")->triple("gfx950"), "amdgcn-amd-amdhsa");
}

ROCKE_TEST(cpus) {
  CHECK(!find_flavor("llvm20")->knows("gfx1250"));
  CHECK(find_flavor("llvm22")->knows("gfx1250"));
  auto s = supporting("gfx1250");
  CHECK_EQ(s.size(), 3u);
  CHECK_EQ(s.at(0), "llvm22");
}

ROCKE_TEST(generations_and_accesses) {
  // flavor_facts.py: GENERATIONS["gfx12"].barrier is "split"; BUFFER_ACCESS[8] is <2 x i32>, v2i32.
  CHECK(generation("gfx12").split_barrier);
  CHECK(!generation("gfx9").split_barrier);
  const auto eight = buffer_access(8);
  REQUIRE(eight.has_value());
  CHECK_EQ(eight->type, "<2 x i32>");
  CHECK_EQ(eight->suffix, "v2i32");
  CHECK(!buffer_access(3));
  CHECK_EQ(id_intrinsic("workgroup", 1), "llvm.amdgcn.workgroup.id.y");
}

ROCKE_TEST(intrinsic_spellings) {
  // flavor_facts.json "intrinsics": a plain name as is, an overloaded one with its suffix.
  CHECK_EQ(intrinsic("mbcnt_lo"), "llvm.amdgcn.mbcnt.lo");
  CHECK_EQ(intrinsic("buffer_load", "v2i32"), "llvm.amdgcn.raw.ptr.buffer.load.v2i32");
  CHECK_EQ(intrinsic("rsq", "f16"), "llvm.amdgcn.rsq.f16");
  CHECK_THROWS(std::logic_error, intrinsic("smin"),
               "intrinsic 'smin' (llvm.smin): expected an overload suffix, got ''");
  CHECK_THROWS(std::logic_error, intrinsic("barrier", "i32"),
               "intrinsic 'barrier' (llvm.amdgcn.s.barrier): expected no overload suffix, got 'i32'");
  CHECK_THROWS(std::logic_error, intrinsic("s_sleep"),
               "platform/arch/flavor_facts.json: intrinsics: expected an entry 's_sleep', got none; add it (schema in "
               "platform/arch/FLAVOR_FACTS.md)");
}

ROCKE_TEST(mma_overrides_apply_per_flavor) {
  // mma_forms.json: gfx1250's 16x16x32 forms are wmma6, and wmma8 on llvm22.
  const auto on_llvm23 = mma("mma_16x16x32_f16_f32", "gfx1250", "llvm23");
  const auto on_llvm22 = mma("mma_16x16x32_f16_f32", "gfx1250", "llvm22");
  const auto gfx11 = mma("mma_16x16x16_f16_f32", "gfx11", "llvm22");
  REQUIRE(on_llvm23 && on_llvm22 && gfx11);
  CHECK_EQ(on_llvm23->form, "wmma6");
  CHECK_EQ(on_llvm22->form, "wmma8");
  CHECK_EQ(gfx11->intrinsic, "llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16");
  CHECK(!mma("mma_16x16x16_f16_f32", "gfx1250", "llvm22"));
  auto gens = mma_generations("mma_16x16x16_bf16_f32");
  CHECK_EQ(gens.size(), 3u);
  CHECK_EQ(gens.at(0), "gfx11");
}

int main() { return rocke::testing::run_all(); }
