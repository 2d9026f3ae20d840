#include "platform/cpp/engine/errors.h"

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/core.h"
#include "platform/lower/cpp/lower.h"

namespace py = pybind11;

namespace rocke::engine {

void translate_errors() {
  // NOLINTNEXTLINE(performance-unnecessary-value-param): pybind11's translator type takes it by value
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ir::VerifyError& e) {
      py::object cls = py::module_::import("ir.core").attr("VerifyError");
      PyErr_SetObject(cls.ptr(), py::str(e.what()).ptr());
    } catch (const lower::ArchDomainError& e) {
      py::object cls = py::module_::import("lower.flavors").attr("ArchDomainError");
      PyErr_SetObject(cls.ptr(), py::str(e.what()).ptr());
    } catch (const family::SpecError& e) {
      // The family's own Python class (a Refusal among them), else ValueError as before.
      const std::string& path = e.python_class();
      if (path.empty()) {
        PyErr_SetString(PyExc_ValueError, e.what());
      } else {
        const std::size_t dot = path.rfind('.');
        py::object cls = py::module_::import(path.substr(0, dot).c_str()).attr(path.substr(dot + 1).c_str());
        PyErr_SetObject(cls.ptr(), py::str(e.what()).ptr());
      }
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

}  // namespace rocke::engine
