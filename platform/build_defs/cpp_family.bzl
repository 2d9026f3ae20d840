"""The shape of a family's C++ mirror (library/FAMILY/cpp/BUILD.bazel):
rocke_cc_spec for a spec read from JSON and its parity with the Python spec,
rocke_cc_family for the family itself. A family's BUILD file then states
only what its sources need beyond that shape."""

load("//platform/cpp:copts.bzl", "rocke_cc_binary", "rocke_cc_library", "rocke_cc_test")
load("//toolchains/python:defs.bzl", "py_pytest")

# What every spec's from_json reads and refuses with.
_SPEC_DEPS = [
    "//platform/cpp/json",
    "//platform/errors/cpp:errors",
    "//platform/family/cpp:family",
    "//platform/family/cpp:fields",
]

# What every spec dump's main loop needs beyond the spec (dump_main.h).
_DUMP_DEPS = [
    "//platform/cpp/json",
    "//platform/errors/cpp:errors",
    "//platform/family/cpp:family",
    "//platform/parity:dump_main",
]

def rocke_cc_spec(name, py_spec, families, deps = [], dump_deps = [], test = False):
    """A spec in C++ (NAME.cc and NAME.h), checked against its Python twin.

    Creates:
      NAME: a rocke_cc_library of NAME.cc and NAME.h.
      NAME_test, if `test`: a rocke_cc_test of NAME_test.cc.
      NAME_dump: a testonly rocke_cc_binary of NAME_dump.cc, whose main is
        //platform/parity:dump_main's loop.
      NAME_parity_test: a py_pytest of NAME_parity_test.py, which runs
        NAME_dump against the Python spec (platform/parity/harness.py),
        tagged family=F for each family F of `families`.

    Args:
      name: the spec's file stem (spec, igemm_spec).
      py_spec: the py_library of the Python spec the parity test imports.
      families: the families whose tests these are (the tags a selection uses).
      deps: what NAME.cc needs beyond the JSON reader, the errors and the
        spec field reader (platform/family/cpp/fields.h).
      dump_deps: what NAME_dump.cc needs beyond NAME and dump_main.
      test: whether NAME_test.cc exists.
    """
    rocke_cc_library(
        name = name,
        srcs = [name + ".cc"],
        hdrs = [name + ".h"],
        deps = _SPEC_DEPS + deps,
    )
    if test:
        rocke_cc_test(
            name = name + "_test",
            size = "small",
            srcs = [name + "_test.cc"],
            deps = [
                ":" + name,
                "//platform/cpp/json",
                "//platform/cpp/testing:check",
                "//platform/family/cpp:family",
            ],
        )
    rocke_cc_binary(
        name = name + "_dump",
        testonly = True,
        srcs = [name + "_dump.cc"],
        deps = [":" + name] + _DUMP_DEPS + dump_deps,
    )
    py_pytest(
        name = name + "_parity_test",
        size = "small",
        srcs = [name + "_parity_test.py"],
        data = [":" + name + "_dump"],
        deps = [
            py_spec,
            "//platform/parity:harness",
        ],
        tags = ["family=" + f for f in families],
    )

def rocke_cc_family(name, deps = []):
    """One family's C++ mirror, NAME.cc (library/FAMILY/NAME.py op for op).

    Creates one rocke_cc_library `name` from NAME.cc, alwayslink: the family
    registers itself with the family registry when linked, and nothing refers
    to the registration by name. It depends on the package's :spec, its
    name (family_names_cc of the package above cpp/, from its rocke_family
    target) and the registry.

    Args:
      name: the family's file stem (gemm, igemm_fwd).
      deps: what NAME.cc needs beyond spec.h, its name and the registry.
    """
    family_package = native.package_name().removesuffix("/cpp")
    rocke_cc_library(
        name = name,
        srcs = [name + ".cc"],
        alwayslink = True,
        deps = [
            ":spec",
            "//{}:family_names_cc".format(family_package),
            "//platform/family/cpp:family",
        ] + deps,
    )
