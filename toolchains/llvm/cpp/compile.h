// Compiling and linking LLVM IR with a real LLVM's tools, without Python:
// the C++ twin of toolchains/llvm's Toolchain.compile and .link for the
// flavors that are LLVM installs (llvm22, llvm23, llvm24; llvm20 is
// llvmlite, a Python package, and has no tools to run).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rocke::llvm {

// A tool that could not run or rejected its input: names the command and
// carries the tool's own message.
class LlvmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs argv[0] (a path) with `input` on stdin; its stdout. LlvmError with
// `what` and the tool's stderr when it cannot start or exits non-zero.
std::string run(const std::vector<std::string>& argv, std::string_view input, std::string_view what);

// The cpu of LLVM IR as the lowering writes it ("target-cpu"="gfx942");
// LlvmError if it names none.
std::string target_cpu(std::string_view ll);

// opt -O2, llc -filetype=obj and ld.lld -shared --no-undefined from the
// tools in `llvm_bin`, as Toolchain.compile_in_processes and ld.lld run
// them (toolchains/llvm/llvm.py; the Python side compiles and links in
// process otherwise, to the same bytes): the code object.
std::string compile_and_link(std::string_view ll, const std::string& llvm_bin);

}  // namespace rocke::llvm
