"""The conv families' C++ mirrors: one macro for their alike cc_libraries."""

load("//platform/cpp:copts.bzl", "rocke_cc_library")

# The library's own macro.
visibility(["//library/..."])

# What every conv family builds on: the frame and helpers (common.h), the
# spec, its name (family_names.h, from its rocke_family target) and the
# family registry it registers with.
_FRAME = [
    ":common",
    ":spec",
    "//library/conv:family_names_cc",
    "//platform/family/cpp:family",
]

def conv_family_library(name, deps = []):
    """One conv family's C++ mirror, NAME.cc (library/conv/NAME.py op for op).

    Creates one rocke_cc_library `name` from `name`.cc, alwayslink: the family
    registers itself with the family registry when linked, and nothing refers
    to the registration by name.

    Args:
      name: the family's file stem (igemm_fwd for conv_igemm_fwd).
      deps: what it needs beyond common.h, spec.h and the family registry.
    """
    rocke_cc_library(
        name = name,
        srcs = [name + ".cc"],
        alwayslink = True,
        deps = _FRAME + deps,
    )
