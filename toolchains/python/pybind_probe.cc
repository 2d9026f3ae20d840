// A minimal pybind11 module: proves pybind_extension builds a loadable module
// against the same interpreter that runs the tests.
#include <pybind11/pybind11.h>

#include <string>

namespace {

int add(int a, int b) { return a + b; }

std::string python_version() { return PY_VERSION; }

}  // namespace

PYBIND11_MODULE(pybind_probe, m) {
  m.def("add", &add, "Adds two integers in C++.");
  m.def("python_version", &python_version, "The Python version this module was compiled against.");
}
