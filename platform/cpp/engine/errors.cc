#include "platform/cpp/engine/errors.h"

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/core.h"

namespace py = pybind11;

namespace rocke::engine {
namespace {

// The Python value json.loads gives for `v` (a BigInt as the int it spells).
py::object to_python(const json::Value& v) {
  if (v.is_null()) return py::none();
  if (v.is_bool()) return py::bool_(v.as_bool());
  if (v.is_int()) return py::int_(v.as_int());
  if (v.is_big()) return py::reinterpret_steal<py::object>(PyLong_FromString(v.as_big().digits.c_str(), nullptr, 10));
  if (v.is_str()) return py::str(v.as_str());
  if (v.is_array()) {
    py::list out;
    for (const json::Value& item : v.as_array()) out.append(to_python(item));
    return out;
  }
  py::dict out;
  for (const auto& [key, item] : v.as_object()) out[py::str(key)] = to_python(item);
  return out;
}

// The Python class at `path` ("conv.img2col.Img2colSpecError").
py::object python_class(const std::string& path) {
  const std::size_t dot = path.rfind('.');
  return py::module_::import(path.substr(0, dot).c_str()).attr(path.substr(dot + 1).c_str());
}

}  // namespace

void translate_errors() {
  // NOLINTNEXTLINE(performance-unnecessary-value-param): pybind11's translator type takes it by value
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const errors::FieldError& e) {
      py::object cls = python_class(e.python_class());
      py::object error = cls(py::str(e.what()), e.field(), to_python(e.value()), to_python(e.allowed()));
      PyErr_SetObject(cls.ptr(), error.ptr());
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}

}  // namespace rocke::engine
