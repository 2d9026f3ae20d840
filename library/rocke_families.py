"""The library's family registry: every family the rocke command line offers.

Each entry is the import path of a module that defines FAMILY (the `module`
of its rocke_family in BUILD.bazel). Adding a family means adding it here and
to this package's `families` target: both live in library/, so the library
team never edits a platform file. tools/checks/no_drop.sh fails when a
rocke_family is missing from this tuple or an entry names no rocke_family.
"""

FAMILIES = (
    "conv.direct_fwd",
    "conv.igemm_dgrad",
    "conv.igemm_fwd",
    "conv.img2col",
    "conv.split_k_reduce",
    "gemm.gemm",
)

# The registry families that have no C++ engine yet, so no byte-identity
# gate (their rocke_family passes no cpp_engine), kept in step with those
# arguments by tools/checks/no_drop.sh. None: every family has a C++ mirror
# (library/*/cpp) and a byte-identity gate per flavor. library/engine:
# engines_test compares the two engines on every family not listed here.
PYTHON_ONLY = ()

# The module that reads problems files and picks a family and config per
# (problem, arch) for `rocke build` and the rocke_catalog actions
# (library/planner/jobs.py). A registry without it offers no `rocke build`.
PLANNER = "planner.jobs"
