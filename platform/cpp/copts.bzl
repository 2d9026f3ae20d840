"""Project C++ flags and the cc rules that apply them.

Every C++ package uses them: the core's twins (platform/*/cpp,
toolchains/llvm/cpp), its support (platform/cpp) and the families'
mirrors (library/*/cpp).

COPTS is the one statement of the flags project C++ is compiled with; every
rocke_cc_* macro adds it, so no BUILD file repeats a flag. The compiler is the
root's g++ through Bazel's C++ rules, as for pybind_extension.
"""

# C++20 for std::span and constexpr std::string_view tables; every warning of
# -Wall -Wextra is an error, so a warning cannot ship.
WARNINGS = [
    "-Wall",
    "-Wextra",
    "-Werror",
]

COPTS = ["-std=c++20"] + WARNINGS

# C, for the proof that an application written in C links the C interface.
C_COPTS = ["-std=c11"] + WARNINGS

def rocke_cc_library(name, copts = [], **kwargs):
    """Creates one cc_library, `name`, compiled with COPTS."""
    native.cc_library(name = name, copts = COPTS + copts, **kwargs)

def rocke_cc_binary(name, copts = [], **kwargs):
    """Creates one cc_binary, `name`, compiled with COPTS."""
    native.cc_binary(name = name, copts = COPTS + copts, **kwargs)

def rocke_c_test(name, **kwargs):
    """Creates one cc_test, `name`, of C sources compiled with C_COPTS. Set `size`."""
    native.cc_test(name = name, copts = C_COPTS, linkstatic = True, **kwargs)

def rocke_cc_test(name, copts = [], **kwargs):
    """Creates one cc_test, `name`, compiled with COPTS. Set `size`.

    Linked statically, as cc_binary is: a dynamically linked cc_test finds no
    lib*.so of its deps in the hermetic sandbox ("error while loading shared
    libraries"), and a static test runs what an application would link.
    """
    native.cc_test(name = name, copts = COPTS + copts, linkstatic = True, **kwargs)
