// rocke_engine: the core C++ engine for Python (platform-owned). It reads
// kernels as .rk text, so that any kernel the Python engine builds can be
// handed to the C++ one:
//
//   import rocke_engine
//   rocke_engine.print_rk(text)            # parsed and printed again
//   rocke_engine.lower(text, "llvm23")     # parsed, verified, lowered
//
// C++ errors arrive as the Python engine's classes (ir.core.VerifyError;
// lower.flavors.ArchDomainError with its field, value and allowed values;
// ir.parser.ParseError's message as ValueError), platform/cpp/engine/errors.h.
#include <pybind11/pybind11.h>

#include <string>

#include "platform/cpp/engine/errors.h"
#include "platform/ir/cpp/parser.h"
#include "platform/ir/cpp/printer.h"
#include "platform/lower/cpp/lower.h"

namespace py = pybind11;

PYBIND11_MODULE(rocke_engine, m) {
  m.doc() = "rocke's core C++ engine: .rk text in, .rk text or LLVM IR out";
  rocke::engine::translate_errors();
  m.def(
      "print_rk", [](const std::string& text) { return rocke::ir::print_kernel(*rocke::ir::parse(text)); },
      py::arg("text"), "The .rk text of the kernel `text` spells, printed by the C++ printer.");
  m.def(
      "lower",
      [](const std::string& text, const std::string& flavor) {
        return rocke::lower::lower(*rocke::ir::parse(text), flavor);
      },
      py::arg("text"), py::arg("flavor"), "LLVM IR of the kernel `text` spells, lowered by the C++ engine.");
}
