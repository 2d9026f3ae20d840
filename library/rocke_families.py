"""The library's family registry: every family the rocke command line offers.

FAMILIES maps the import path of each family's module (the `module` of its
rocke_family in BUILD.bazel) to its FAMILY, imported directly. Adding a
family means importing its module here and adding its py_library to this
package's `families` target: both live in library/. tools/checks/no_drop.sh
fails when a rocke_family is missing here or an entry names no rocke_family.
"""

from conv import direct_fwd, igemm_dgrad, igemm_fwd, igemm_wgrad, img2col, split_k_reduce
from gemm import gemm

FAMILIES = {
    module.__name__: module.FAMILY
    for module in (direct_fwd, igemm_dgrad, igemm_fwd, igemm_wgrad, img2col, split_k_reduce, gemm)
}

# The registry families that have no C++ engine yet, so no byte-identity
# gate (their rocke_family passes no cpp_engine), kept in step with those
# arguments by tools/checks/no_drop.sh. None: every family has a C++ mirror
# (library/*/cpp) and a byte-identity gate per flavor. library/engine:
# engines_test compares the two engines on every family not listed here.
PYTHON_ONLY = ()
