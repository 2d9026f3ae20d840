// The C interface (rocke.h) over the C++ engine: every C++ exception
// becomes an error string, so no exception crosses into C.
#include "platform/cpp/capi/rocke.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

#include "platform/cpp/engine/engine.h"
#include "platform/family/cpp/family.h"
#include "platform/files/cpp/atomic.h"
#include "toolchains/llvm/cpp/compile.h"

namespace {

char* copy(std::string_view s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (!p) throw std::bad_alloc();  // guarded reports it: never a success with a NULL output
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

// Runs `body`; on an exception sets *error (when given) and returns 1.
template <typename F>
int guarded(char** error, F&& body) {
  if (error) *error = nullptr;
  try {
    body();
    return 0;
  } catch (const std::exception& e) {
    if (error) *error = copy(e.what());
  } catch (...) {
    if (error) *error = copy("rocke: an unknown C++ exception (a bug: please report it)");
  }
  return 1;
}

// Any pointer: an output pointer (char**) too, with no conversion to void*.
template <typename T>
void require(const T* p, const char* what) {
  if (!p) throw std::invalid_argument(std::string("rocke: expected ") + what + ", got NULL");
}

}  // namespace

extern "C" {

int rocke_families(char** names, char** error) {
  return guarded(error, [&] {
    require(names, "an output pointer for the names");
    std::string text;
    for (const std::string& name : rocke::family::names()) text += name + "\n";
    *names = copy(text);
  });
}

int rocke_emit(const char* family, const char* case_json, const char* flavor, char** rk, char** ll, char** error) {
  return guarded(error, [&] {
    require(family, "a family name");
    require(case_json, "a case as JSON");
    require(flavor, "a flavor name");
    require(rk, "an output pointer for the .rk text");
    require(ll, "an output pointer for the LLVM IR");
    const rocke::engine::Emitted out = rocke::engine::emit_case(family, case_json, flavor);
    *rk = copy(out.rk);
    *ll = copy(out.ll);
  });
}

int rocke_compile(const char* ll, const char* flavor, const char* llvm_bin, const char* out_path, char** error) {
  return guarded(error, [&] {
    require(ll, "LLVM IR");
    require(flavor, "a flavor name");
    require(llvm_bin, "the bin folder of an LLVM");
    require(out_path, "an output path");
    const std::string_view f(flavor);
    if (f == "llvm20") {
      throw rocke::llvm::LlvmError(
          "rocke_compile: expected llvm22, llvm23 or llvm24, got llvm20 (llvm20 is llvmlite, a Python package, with no "
          "tools to run); emit for llvm20 and compile with the Python engine, or pick a newer flavor");
    }
    if (f != "llvm22" && f != "llvm23" && f != "llvm24") {
      throw rocke::llvm::LlvmError("rocke_compile: expected llvm22, llvm23 or llvm24, got " + std::string(f) +
                                   "; pass the flavor the IR was emitted for");
    }
    rocke::files::write_atomic(out_path, rocke::llvm::compile_and_link(ll, llvm_bin));
  });
}

void rocke_free(char* p) { std::free(p); }

}  // extern "C"
