// lld's ELF linker inside the process that compiled the object: lld_link.py
// loads this library (one per LLVM, //toolchains/llvm:lld_link_NN.so) and
// links a kernel's object into its code object in about 0.5 ms, where an
// ld.lld process takes 15-19 ms, 13 of them to start (it loads and relocates
// libLLVM.so.NN before it reads an argument).
//
// Debian's liblld-NN ships lld's archives without LLVM's headers (those come
// with llvm-NN-dev, 394 MB per version), so the few lld and LLVM names this
// file uses are declared here, as lld's Driver.h declares them in LLVM 22-24
// (clang's wasm interpreter does the same). A declaration that is not the
// archives' fails this library's link (-Wl,--no-undefined: the mangled names
// carry the types), and inproc_test compares its code objects with ld.lld's.

#include <cstddef>

namespace llvm {
template <typename T>
class ArrayRef {  // the layout of LLVM's: a pointer and a length, passed by value
 public:
  const T *data;
  std::size_t length;
};
class raw_ostream;
raw_ostream &nulls();
}  // namespace llvm

namespace lld {
enum Flavor { Invalid, Gnu, MinGW, WinLink, Darwin, Wasm };
using Driver = bool (*)(llvm::ArrayRef<const char *> args, llvm::raw_ostream &stdout_os, llvm::raw_ostream &stderr_os, bool exit_early, bool disable_output);
struct DriverDef {
  Flavor flavor;
  Driver driver;
};
struct Result {
  int ret_code;
  bool can_run_again;
};
// The entry point for lld as a library: it runs the driver under crash
// recovery, frees the link's state afterwards, and says whether it may run again.
Result lldMain(llvm::ArrayRef<const char *> args, llvm::raw_ostream &stdout_os, llvm::raw_ostream &stderr_os, llvm::ArrayRef<DriverDef> drivers);
namespace elf {
bool link(llvm::ArrayRef<const char *> args, llvm::raw_ostream &stdout_os, llvm::raw_ostream &stderr_os, bool exit_early, bool disable_output);
}  // namespace elf
}  // namespace lld

// Runs `ld.lld argv[1..]` (argv[0] is the program name lld's option parser
// expects). Returns lld's exit code and sets *can_run_again to 0 when lld says
// the process must not link again (a crash it recovered from). lld's messages
// are dropped: the caller runs ld.lld itself for the words of a failed link.
extern "C" __attribute__((visibility("default"))) int rocke_lld_link(const char *const *argv, std::size_t argc, int *can_run_again) {
  const lld::DriverDef drivers[] = {{lld::Gnu, &lld::elf::link}};
  const lld::Result result = lld::lldMain({argv, argc}, llvm::nulls(), llvm::nulls(), {drivers, 1});
  *can_run_again = result.can_run_again ? 1 : 0;
  return result.ret_code;
}
