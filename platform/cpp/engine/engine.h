// The engine's one entry point for a single kernel: a case of a registered
// family, built, printed (.rk) and lowered (LLVM IR) for one flavor. The C
// interface (capi/rocke.h) and the pybind modules call this; the emitter
// runs it over a whole case list.
#pragma once

#include <string>
#include <string_view>

#include "platform/family/cpp/family.h"

namespace rocke::engine {

struct Emitted {
  std::string rk;    // the kernel's .rk text (ir::print_kernel)
  std::string ll;    // its LLVM IR for the flavor (lower::lower)
  std::string name;  // the kernel's symbol, as its builder named it
};

// The case `c` of `fam` for `flavor`. Throws what the family, the verifier
// and the lowering throw (SpecError, VerifyError, ArchDomainError).
Emitted emit(const family::Family& fam, const family::Case& c, std::string_view flavor);

// The same from names and JSON text: `case_json` is one entry of a case list,
// {"arch": ..., "id": ..., "spec": {...}}; FamilyError names what is wrong
// with it.
Emitted emit_case(std::string_view family, std::string_view case_json, std::string_view flavor);

}  // namespace rocke::engine
