// rocke_library_engine: the library's C++ families for Python
// (library-owned). Through it, platform/family/engines.py's lower_family
// runs the C++ engine on a case:
//
//   import rocke_library_engine
//   rk, ll, name = rocke_library_engine.emit("conv_direct_fwd", case_json, "llvm23")
//   rocke_library_engine.families()       # ["conv_direct_fwd", ...]
//
// Verifier, lowering and spec errors arrive as the Python engine's classes,
// a spec's and a refusal's with their field, value and allowed values; an
// unknown family as ValueError (platform/cpp/engine/errors.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <tuple>
#include <utility>

#include "platform/cpp/engine/engine.h"
#include "platform/cpp/engine/errors.h"
#include "platform/family/cpp/family.h"

namespace py = pybind11;

PYBIND11_MODULE(rocke_library_engine, m) {
  m.doc() = "rocke's kernel families in C++: a case in, its .rk text and LLVM IR out";
  rocke::engine::translate_errors();
  m.def(
      "emit",
      [](const std::string& family, const std::string& case_json, const std::string& flavor) {
        rocke::engine::Emitted out = rocke::engine::emit_case(family, case_json, flavor);
        return std::make_tuple(std::move(out.rk), std::move(out.ll), std::move(out.name));
      },
      py::arg("family"), py::arg("case_json"), py::arg("flavor"),
      "(rk, ll, kernel name) of one case ({\"arch\", \"id\", \"spec\"} as JSON text) of `family` for `flavor`.");
  m.def("families", &rocke::family::names, "The names of the C++ families, sorted.");
}
