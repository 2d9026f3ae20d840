"""library_family: a family of the library, with every gate it gets."""

load("//platform/build_defs:family.bzl", "ALL_FLAVORS", "rocke_family")
load("//toolchains/python:defs.bzl", "py_pytest")

# The library's own macro: loaded only by the library's packages.
visibility(["//library/..."])

def library_family(name, module, deps, cpp_library):
    """A kernel family of the library: rocke_family's gates with the C++
    engine (//library:rocke-emit), and the in-process engines test.

    Creates every target rocke_family(name, module, deps, cpp_engine =
    "//library:rocke-emit", cpp_library) creates (platform/build_defs/family.bzl;
    its test_suite NAME runs NAME_engines too), and
      name + "_engines": test: the pybind engine (//library/engine) on every
                         case and flavor gives the bytes NAME_emit (the
                         Python engine) wrote; a flavor's refusal of an arch
                         is the same error, with the same facts, from both
                         engines. Tags: engines, family=NAME. Depends on this
                         family alone, so an edit to another family does not
                         re-run it.

    Args:
      name: the family name (written here only: the package's generated
        family_names gives it to the module and its C++ mirror).
      module: import path of the module defining FAMILY.
      deps: py_library targets providing `module`.
      cpp_library: label of the family's C++ mirror (a cc_library).
    """
    rocke_family(
        name = name,
        module = module,
        deps = deps,
        cpp_engine = "//library:rocke-emit",
        cpp_library = cpp_library,
        suite_tests = [":" + name + "_engines"],
    )
    py_pytest(
        name = name + "_engines",
        size = "medium",
        srcs = ["//library/engine:family_engines_test.py"],
        data = [":{}_emit_{}".format(name, flavor) for flavor in ALL_FLAVORS],
        env = {
            "ROCKE_FAMILY_EMITTED": "{}/{}".format(native.package_name(), name),
            "ROCKE_FAMILY_MODULE": module,
        },
        deps = deps + [
            "//library/engine",
            "//platform/family",
            "//platform/family:engines",
        ],
        tags = ["engines", "family=" + name],
    )
