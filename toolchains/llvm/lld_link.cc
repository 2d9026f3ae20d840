// lld's ELF linker inside the process that compiled the object: lld_link.py
// loads this library (one per LLVM, //toolchains/llvm:lld_link_NN.so, built
// with ROCKE_LLVM_MAJOR=NN) and links a kernel's object into its code object
// without starting an ld.lld process.
//
// Debian's liblld-NN ships lld's archives without LLVM's headers (those come
// with llvm-NN-dev, 394 MB per version), so the few lld and LLVM names this
// file uses are declared here, as lld's Driver.h and LLVM's headers declare
// them in LLVM 22-24 (clang's wasm interpreter declares lld's the same way).
// A name or argument type that is not the archives' fails this library's
// link (-Wl,--no-undefined; mangled names carry the argument types); the
// layouts of Result and DriverDef and the value of Gnu are not in the names,
// and inproc_test proves them: its code objects equal ld.lld's byte for byte,
// and a fatal error reads back as a failed link lld may not repeat.

#include <cstddef>

// NOLINTBEGIN(misc-use-internal-linkage): LLVM's and lld's own declarations,
// which must keep external linkage to name the libraries' symbols.
namespace llvm {
template <typename T>
class ArrayRef {  // the layout of LLVM's: a pointer and a length, passed by value
 public:
  const T* data;
  std::size_t length;
};
class raw_ostream;
raw_ostream& nulls();
// Without it enabled, lld's fatal errors (a malformed object, say) end the
// whole process with _exit(1): lldMain's recovery works only once enabled.
class CrashRecoveryContext {
 public:
#if ROCKE_LLVM_MAJOR >= 23
  // LLVM 23 added the flag; read from its machine code: true leaves alone a
  // signal the process ignores, false takes all six (abort, bus error,
  // FPE, illegal instruction, segfault, trap) as LLVM 22 does.
  static void Enable(bool keep_ignored);
#else
  static void Enable();
#endif
  static void Disable();  // puts back the handlers Enable replaced
};
}  // namespace llvm

namespace lld {
enum Flavor { Invalid, Gnu, MinGW, WinLink, Darwin, Wasm };
using Driver = bool (*)(llvm::ArrayRef<const char*> args, llvm::raw_ostream& stdout_os, llvm::raw_ostream& stderr_os,
                        bool exit_early, bool disable_output);
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
Result lldMain(llvm::ArrayRef<const char*> args, llvm::raw_ostream& stdout_os, llvm::raw_ostream& stderr_os,
               llvm::ArrayRef<DriverDef> drivers);
namespace elf {
bool link(llvm::ArrayRef<const char*> args, llvm::raw_ostream& stdout_os, llvm::raw_ostream& stderr_os, bool exit_early,
          bool disable_output);
}  // namespace elf
}  // namespace lld
// NOLINTEND(misc-use-internal-linkage)

namespace {
void enable_crash_recovery() {
#if ROCKE_LLVM_MAJOR >= 23
  llvm::CrashRecoveryContext::Enable(false);
#else
  llvm::CrashRecoveryContext::Enable();
#endif
}
}  // namespace

// Runs `ld.lld argv[1..]` (argv[0] is the program name lld's option parser
// expects), with LLVM's crash recovery on for the link only, so that the
// caller's own signal handlers are back afterwards. Returns lld's exit code
// and sets *can_run_again to 0 when lld says the process must not link again
// (a fatal error or a crash it recovered from). lld's messages are dropped:
// the caller runs ld.lld itself for the words of a failed link. One link at
// a time per process (lld keeps its state in globals): the caller's lock.
extern "C" __attribute__((visibility("default"))) int rocke_lld_link(const char* const* argv, std::size_t argc,
                                                                     int* can_run_again) {
  enable_crash_recovery();
  const lld::DriverDef drivers[] = {{lld::Gnu, &lld::elf::link}};
  const lld::Result result = lld::lldMain({argv, argc}, llvm::nulls(), llvm::nulls(), {drivers, 1});
  llvm::CrashRecoveryContext::Disable();
  *can_run_again = result.can_run_again ? 1 : 0;
  return result.ret_code;
}
