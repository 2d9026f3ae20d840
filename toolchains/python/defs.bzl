"""Python rules for rocke: pytest-driven tests and pybind11 extensions."""

load("@rules_python//python:defs.bzl", "py_test")

def py_pytest(name, srcs, deps = [], data = [], args = [], **kwargs):
    """A py_test whose main runs pytest over `srcs`.

    Creates one target, `name`: a py_test. Its exit status is pytest's, so a
    failing assertion (or no test collected) fails the target.

    Args:
      name: target name.
      srcs: the test files; all are collected by pytest.
      deps: py_library deps.
      data: runtime data.
      args: extra pytest arguments.
      **kwargs: passed to py_test (size, tags, env, ...).
    """
    py_test(
        name = name,
        srcs = srcs + ["//toolchains/python:pytest_main.py"],
        main = "//toolchains/python:pytest_main.py",
        deps = deps,
        data = data,
        args = ["$(rootpath {})".format(s) for s in srcs] + args,
        **kwargs
    )

def pybind_extension(name, srcs, deps = [], copts = [], **kwargs):
    """A Python extension module built with pybind11.

    Creates `name + ".so"`: a linkshared cc_binary compiled with hidden
    visibility against the pybind11 and Python headers of the root's venv
    interpreter (the one py_test runs with). Put it in a py_library's or
    py_test's `data` and `import name` from the directory it lands in.

    Args:
      name: the module name (what Python imports).
      srcs: C++ sources, one of which holds PYBIND11_MODULE(name, m).
      deps: cc_library deps.
      copts: extra compiler flags.
      **kwargs: passed to cc_binary (visibility, tags, ...).
    """
    native.cc_binary(
        name = name + ".so",
        srcs = srcs,
        deps = deps + ["@rocke_python//:pybind11_headers"],
        copts = copts + ["-fvisibility=hidden", "-fvisibility-inlines-hidden"],
        linkshared = True,
        linkstatic = True,
        **kwargs
    )
