// The C interface (rocke.h) over the C++ engine: every C++ exception
// becomes an error string, so no exception crosses into C.
#include "platform/cpp/capi/rocke.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "platform/cpp/engine/engine.h"
#include "platform/family/cpp/family.h"
#include "platform/files/cpp/atomic.h"
#include "toolchains/llvm/cpp/compile.h"
#include "toolchains/llvm/cpp/flavors_data.h"

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

// The flavors whose tools compile (toolchains/llvm/flavors.bzl, kind "llc"),
// as "llvm22, llvm23 or llvm24".
std::string compiling_flavors() {
  std::vector<std::string> names;
  for (const auto& f : rocke::data::llvm_flavors::kFlavors) {
    if (f.kind == "llc") names.push_back("llvm" + std::string(f.major));
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return out;
}

// LlvmError unless `flavor` is one whose tools compile; a flavor without
// tools (llvmlite) is said to be one.
void check_compiles(std::string_view flavor) {
  for (const auto& f : rocke::data::llvm_flavors::kFlavors) {
    if (flavor != "llvm" + std::string(f.major)) continue;
    if (f.kind == "llc") return;
    throw rocke::llvm::LlvmError("rocke_compile: expected " + compiling_flavors() + ", got " + std::string(flavor) +
                                 " (" + std::string(flavor) + " is " + std::string(f.kind) +
                                 ", a Python package, with no tools to run); emit for " + std::string(flavor) +
                                 " and compile with the Python engine, or pick a newer flavor");
  }
  throw rocke::llvm::LlvmError("rocke_compile: expected " + compiling_flavors() + ", got " + std::string(flavor) +
                               "; pass the flavor the IR was emitted for");
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
    check_compiles(flavor);
    rocke::files::write_atomic(out_path, rocke::llvm::compile_and_link(ll, llvm_bin));
  });
}

void rocke_free(char* p) { std::free(p); }

}  // extern "C"
