// The lowering of small kernels, written out from llvm.py's module layout,
// and its refusals (ArchDomainError, each naming its field). rk_parity_test
// compares every op and flavor with Python's output.
#include "platform/lower/cpp/lower.h"

#include <string>

#include "platform/cpp/testing/check.h"
#include "platform/ir/cpp/parser.h"
#include "platform/ir/cpp/verifier.h"
#include "platform/lower/cpp/flavors.h"

using namespace rocke;

namespace {

std::string lowered(const std::string& arch, const std::string& body, std::string_view flavor) {
  std::string text = "kernel @k(%out: ptr<global>) {arch = \"" + arch +
                     "\", wave_size = " + (arch.starts_with("gfx9") ? "64" : "32") +
                     ", workgroup_size = [64, 1, 1]} {\n" + body + "}\n";
  return lower::lower(*ir::parse(text), flavor);
}

}  // namespace

ROCKE_TEST(a_whole_module) {
  std::string want = std::string("; rocke kernel k for gfx942, lowered for llvm22\n") + "target datalayout = \"" +
                     std::string(lower::find_flavor("llvm22")->datalayout) + "\"\n" +
                     "target triple = \"amdgcn-amd-amdhsa\"\n"
                     "\n"
                     "define amdgpu_kernel void @k(ptr addrspace(1) noundef %arg.out) #0 {\n"
                     "entry:\n"
                     "  %v0 = call i32 @llvm.amdgcn.workitem.id.x()\n"
                     "  store i32 %v0, ptr addrspace(1) %arg.out, align 4\n"
                     "  ret void\n"
                     "}\n"
                     "\n"
                     "declare i32 @llvm.amdgcn.workitem.id.x()\n"
                     "\n"
                     "attributes #0 = { \"amdgpu-flat-work-group-size\"=\"1,64\" \"target-cpu\"=\"gfx942\" "
                     "\"uniform-work-group-size\"=\"true\" }\n"
                     "\n"
                     "!llvm.module.flags = !{!0}\n"
                     "!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 600}\n";
  CHECK_EQ(lowered("gfx942", "  %0 = gpu.thread_id() {dim = 0} : i32\n  mem.store(%out, %0)\n", "llvm22"), want);
}

ROCKE_TEST(llvm24_spells_the_subarch_triple) {
  std::string out = lowered("gfx942", "", "llvm24");
  CHECK(out.find("target triple = \"amdgpu9.42-amd-amdhsa\"\n") != std::string::npos);
}

ROCKE_TEST(gfx1250_splits_the_barrier) {
  std::string out = lowered("gfx1250", "  gpu.barrier()\n", "llvm23");
  CHECK(out.find("  fence syncscope(\"workgroup\") release\n"
                 "  call void @llvm.amdgcn.s.barrier.signal(i32 -1)\n"
                 "  call void @llvm.amdgcn.s.barrier.wait(i16 -1)\n"
                 "  fence syncscope(\"workgroup\") acquire\n") != std::string::npos);
  CHECK(lowered("gfx1201", "  gpu.barrier()\n", "llvm23").find("@llvm.amdgcn.s.barrier.signal") != std::string::npos);
  CHECK(lowered("gfx1100", "  gpu.barrier()\n", "llvm23").find("call void @llvm.amdgcn.s.barrier()\n") !=
        std::string::npos);
}

ROCKE_TEST(lds_barrier_fences_synchronize_lds_only) {
  std::string out = lowered("gfx1201", "  gpu.lds_barrier()\n  gpu.sched_barrier()\n", "llvm23");
  CHECK(out.find("  fence syncscope(\"workgroup\") release, !mmra !1\n"
                 "  call void @llvm.amdgcn.s.barrier.signal(i32 -1)\n"
                 "  call void @llvm.amdgcn.s.barrier.wait(i16 -1)\n"
                 "  fence syncscope(\"workgroup\") acquire, !mmra !1\n"
                 "  call void @llvm.amdgcn.sched.barrier(i32 0)\n") != std::string::npos);
  const std::string tail =
      "!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 600}\n!1 = !{!\"amdgpu-synchronize-as\", !\"local\"}\n";
  CHECK(out.size() > tail.size() && out.compare(out.size() - tail.size(), tail.size(), tail) == 0);
  // Without a gpu.lds_barrier there is no such node.
  CHECK(lowered("gfx1201", "  gpu.barrier()\n", "llvm23").find("amdgpu-synchronize-as") == std::string::npos);
}

ROCKE_TEST(gfx950_memory_ops_and_their_refusal_elsewhere) {
  const std::string body =
      "  %0 = mem.lds_alloc() {align = 16, bytes = 1024} : ptr<lds>\n"
      "  mem.load_to_lds(%out, %0)\n"
      "  %1 = mem.load_transpose(%0) : vector<4xi16>\n"
      "  mem.store(%out, %1)\n";
  std::string out = lowered("gfx950", body, "llvm22");
  CHECK(out.find("  call void @llvm.amdgcn.global.load.lds(ptr addrspace(1) %arg.out, ptr addrspace(3) @rocke.lds.0, "
                 "i32 16, i32 0, i32 0)\n") != std::string::npos);
  CHECK(out.find("  %v0 = call <4 x i16> @llvm.amdgcn.ds.read.tr16.b64.v4i16(ptr addrspace(3) @rocke.lds.0)\n") !=
        std::string::npos);
  CHECK_THROWS(lower::ArchDomainError, lowered("gfx1201", body, "llvm22"),
               "mem.load_to_lds: no instruction for llvm.amdgcn.global.load.lds on gfx1201 with llvm22; supported on: "
               "gfx950. Choose a "
               "supported arch, or a different op for this one.");
}

ROCKE_TEST(buffer_load_to_lds_takes_the_lane_offset_then_the_wave_offset) {
  // lower_test.py's test of the same name.
  const std::string body =
      "  %0 = mem.lds_alloc() {align = 16, bytes = 1024} : ptr<lds>\n"
      "  %1 = arith.const() {value = 4096} : i32\n"
      "  %2 = buffer.rsrc(%out, %1) : ptr<buffer>\n"
      "  %3 = gpu.lane_id() : i32\n"
      "  %4 = arith.const() {value = 32} : i32\n"
      "  buffer.load_to_lds(%2, %3, %4, %0)\n"
      "  gpu.barrier()\n";
  std::string out = lowered("gfx950", body, "llvm22");
  CHECK(out.find("  call void @llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %v1, ptr addrspace(3) "
                 "@rocke.lds.0, i32 16, i32 %v3, i32 32, "
                 "i32 0, i32 0)\n") != std::string::npos);
  CHECK(out.find("  call void @llvm.amdgcn.s.waitcnt(i32 3952)\n") != std::string::npos);
  CHECK_THROWS(lower::ArchDomainError, lowered("gfx942", body, "llvm22"),
               "buffer.load_to_lds: no instruction for llvm.amdgcn.raw.ptr.buffer.load.lds on gfx942 with llvm22; "
               "supported on: gfx950. "
               "Choose a supported arch, or a different op for this one.");
}

ROCKE_TEST(refusals_name_what_was_received_and_what_is_allowed) {
  // flavors.get and flavors.check_arch.
  CHECK_THROWS(lower::ArchDomainError, lowered("gfx942", "", "llvm19"),
               "flavor: expected one of llvm20, llvm22, llvm23, llvm24, got \"llvm19\"");
  CHECK_THROWS(lower::ArchDomainError, lowered("gfx1250", "", "llvm20"),
               "kernel @k: gfx1250 is not known to llvm20; flavors that support it: llvm22, llvm23, llvm24. Lower for "
               "one of those, or pick "
               "another arch.");
}

ROCKE_TEST(lower_verified_is_lower_without_the_second_verify) {
  const std::string text =
      "kernel @k(%out: ptr<global>) {arch = \"gfx942\", wave_size = 64, workgroup_size = [64, 1, 1]} {\n"
      "  %0 = gpu.lane_id() : i32\n  %1 = arith.max(%0, %0) : i32\n  mem.store(%out, %1)\n  gpu.barrier()\n}\n";
  const auto kernel = ir::parse(text);
  ir::verify(*kernel);
  for (const lower::Flavor& f : lower::flavors())
    CHECK_EQ(lower::lower_verified(*kernel, f.name), lower::lower(*kernel, f.name));
  // Its own checks stay: the flavor, and the arch against the flavor.
  CHECK_THROWS(lower::ArchDomainError, lower::lower_verified(*kernel, "llvm19"),
               "flavor: expected one of llvm20, llvm22, llvm23, llvm24, got \"llvm19\"");
  const auto gfx1250 =
      ir::parse("kernel @k() {arch = \"gfx1250\", wave_size = 32, workgroup_size = [32, 1, 1]} {\n}\n");
  CHECK_THROWS(lower::ArchDomainError, lower::lower_verified(*gfx1250, "llvm20"),
               "kernel @k: gfx1250 is not known to llvm20; flavors that support it: llvm22, llvm23, llvm24. Lower for "
               "one of those, or pick "
               "another arch.");
}

int main() { return rocke::testing::run_all(); }
