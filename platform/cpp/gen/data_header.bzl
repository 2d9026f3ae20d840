"""rocke_data_header: a JSON data file under platform/ as a C++ header.

The C++ mirror reads every fact it shares with Python through these headers,
generated at build time by datagen.py, so the two cannot drift apart.
"""

def rocke_data_header(name, src, namespace, tables, consts = [], **kwargs):
    """A C++ header of constexpr tables generated from a JSON data file.

    Creates two targets:
      `name + "_gen"`: a genrule running //platform/cpp/gen:datagen on `src`,
        whose one output is the header `name + ".h"` in this package;
      `name`: a header-only cc_library exporting that header (include it by
        its package's path, "platform/arch/cpp/archs_data.h").

    Args:
      name: the library's name, and the header's without ".h".
      src: the JSON data file (a label).
      namespace: the C++ namespace of the tables, e.g. "rocke::data::archs".
      tables: table name -> {"rows": PATTERN, "fields": ["NAME=PATH:TYPE", ...]},
        in the order the header declares them. Syntax in
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
