"""C++ rules for rocke's C++ mirror (platform/cpp, later library/*/cpp).

COPTS is the one statement of the flags project C++ is compiled with; every
rocke_cc_* macro adds it, so no BUILD file repeats a flag. The compiler is the
root's g++ through Bazel's C++ rules, as for pybind_extension.
"""

# C++20 for std::span and constexpr std::string_view tables; every warning of
# -Wall -Wextra is an error, so a warning cannot ship.
COPTS = [
    "-std=c++20",
    "-Wall",
    "-Wextra",
    "-Werror",
]

def rocke_cc_library(name, copts = [], **kwargs):
    """Creates one cc_library, `name`, compiled with COPTS."""
    native.cc_library(name = name, copts = COPTS + copts, **kwargs)

def rocke_cc_binary(name, copts = [], **kwargs):
    """Creates one cc_binary, `name`, compiled with COPTS."""
    native.cc_binary(name = name, copts = COPTS + copts, **kwargs)

def rocke_cc_test(name, copts = [], **kwargs):
    """Creates one cc_test, `name`, compiled with COPTS. Set `size`.

    Linked statically, as cc_binary is: a dynamically linked cc_test finds no
    lib*.so of its deps in the hermetic sandbox ("error while loading shared
    libraries"), and a static test runs what an application would link.
    """
    native.cc_test(name = name, copts = COPTS + copts, linkstatic = True, **kwargs)

def rocke_data_header(name, src, namespace, tables = {}, consts = [], **kwargs):
    """A C++ header of constexpr tables generated from a JSON data file.

    Creates two targets:
      `name + "_gen"`: a genrule running //platform/cpp/gen:datagen on `src`,
        whose one output is the header `name + ".h"` in this package;
      `name`: a header-only cc_library exporting that header (include it as
        "platform/<pkg>/<name>.h").

    Args:
      name: the library's name, and the header's without ".h".
      src: the JSON data file (a label).
      namespace: the C++ namespace of the tables, e.g. "rocke::data::archs".
      tables: table name -> struct(rows = PATTERN, fields = ["NAME=PATH:TYPE", ...]);
        a plain dict {"rows": ..., "fields": [...]} works too. Syntax in
        platform/cpp/gen/datagen.py.
      consts: ["NAME=PATH:TYPE", ...], top-level constants.
      **kwargs: passed to both targets (visibility, tags, ...).
    """
    args = []
    for table, spec in tables.items():
        args.append("--table '{}={}'".format(table, spec["rows"]))
        args += ["--field '{}'".format(f) for f in spec["fields"]]
    args += ["--const '{}'".format(c) for c in consts]
    native.genrule(
        name = name + "_gen",
        srcs = [src],
        outs = [name + ".h"],
        cmd = "$(execpath //platform/cpp/gen:datagen) --src $(location {}) --out $@ --namespace {} {}".format(
            src,
            namespace,
            " ".join(args),
        ),
        tools = ["//platform/cpp/gen:datagen"],
        **kwargs
    )
    native.cc_library(
        name = name,
        hdrs = [name + ".h"],
        **kwargs
    )
