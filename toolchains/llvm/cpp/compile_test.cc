// Runs the real LLVM of the flavor whose toolchain.json is argv[1].
#include "toolchains/llvm/cpp/compile.h"

#include <fstream>
#include <sstream>
#include <string>

#include "platform/cpp/testing/check.h"

namespace {

std::string g_bin;

// A kernel written by hand (not by the lowering under test elsewhere).
constexpr const char* kKernel = R"(target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @store_one(ptr addrspace(1) %p) #0 {
  store i32 1, ptr addrspace(1) %p, align 4
  ret void
}
attributes #0 = { "target-cpu"="gfx942" }
)";

ROCKE_TEST(compiles_and_links_an_amdgpu_code_object) {
  const std::string obj = rocke::llvm::compile_and_link(kKernel, g_bin);
  CHECK(obj.size() > 64);
  CHECK_EQ(obj.substr(0, 4), std::string("\x7f"
                                         "ELF"));
  // e_machine (bytes 18-19, little-endian) is EM_AMDGPU, 224.
  CHECK_EQ(static_cast<unsigned char>(obj[18]) | static_cast<unsigned char>(obj[19]) << 8, 224);
  // ET_DYN: the linker ran (an object from llc alone is ET_REL, 1).
  CHECK_EQ(static_cast<int>(obj[16]), 3);
}

ROCKE_TEST(invalid_ir_names_the_tool_and_carries_its_message) {
  std::string bad = kKernel;
  bad.replace(bad.find("store i32 1"), 11, "store i32 %undefined_value");
  try {
    rocke::llvm::compile_and_link(bad, g_bin);
    CHECK(false);
  } catch (const rocke::llvm::LlvmError& e) {
    const std::string what = e.what();
    CHECK_EQ(what.rfind("opt -O2 -mcpu=gfx942 failed: ", 0), 0u);
    CHECK(what.find("undefined_value") != std::string::npos);
  }
}

ROCKE_TEST(a_missing_tool_is_one_clear_error) {
  CHECK_THROWS(rocke::llvm::LlvmError, rocke::llvm::compile_and_link(kKernel, "/no/such/bin"),
               "opt -O2 -mcpu=gfx942: cannot run /no/such/bin/opt (No such file or directory); "
               "pass the bin folder of an installed LLVM");
}

ROCKE_TEST(target_cpu_is_read_from_the_ir) {
  CHECK_EQ(rocke::llvm::target_cpu(kKernel), std::string("gfx942"));
  CHECK_THROWS(
      rocke::llvm::LlvmError, rocke::llvm::target_cpu("define void @f() { ret void }"),
      "LLVM IR: expected a function attribute \"target-cpu\"=\"gfx...\" (rocke's lowering writes one), got none");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::ifstream in(argv[1]);
  std::stringstream s;
  s << in.rdbuf();
  // toolchain.json: "tools": {"bin": "/usr/lib/llvm-NN/bin"}
  const std::string text = s.str();
  const auto key = text.find("\"bin\": \"");
  if (key == std::string::npos) return 2;
  const auto start = key + 8;
  g_bin = text.substr(start, text.find('"', start) - start);
  return rocke::testing::run_all();
}
