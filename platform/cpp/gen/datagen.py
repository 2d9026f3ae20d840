"""Turn one JSON data file into a C++ header of constexpr tables.

The C++ mirror gets every fact it shares with Python from the data files under
platform/ through headers this tool writes at build time (rocke_data_header in
platform/cpp/gen/data_header.bzl), so the two engines read the same bytes.

    datagen.py --src archs.json --out archs_data.h --namespace rocke::data::archs \
        --table archs='*' --field name=@0:str --field cus=cus:int \
        --const kMaxLanes=max_lanes:int

A table is a PATTERN of the rows: a slash path where `*` stands for every key
of an object (in sorted order) or every item of a list (in list order). Each
--field after it is NAME=PATH:TYPE, PATH relative to the row: `@N` is the key
(or index) the N-th `*` matched, `.` the row itself, `a/b` descends, `..` goes
up one level. TYPE is int, str, bool, ints or strs; TYPE? makes the field a
std::optional, std::nullopt where PATH has no value of TYPE's JSON kind (a key
missing on the way, or e.g. an object where an int would be; a list's kind is
its first item's), so one entry may be a count or {"min": count}. A value of
the right kind that breaks TYPE (a list mixing kinds) is still an error. The
table becomes
`struct <Name>Row` and `inline constexpr <Name>Row k<Name>[]`; --const NAME=
PATH:TYPE (PATH from the top) becomes `inline constexpr ... NAME`.

The output depends only on the input bytes and the arguments: keys are sorted,
nothing is hashed, and there is no timestamp. Bad input stops with one line
naming the file, the entry and the field.
"""

import argparse
import json
import sys

from files import atomic

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
# TYPE -> (C++ member type, element C++ type or None for a scalar field).
TYPES = {
    "int": ("int", None),
    "str": ("std::string_view", None),
    "bool": ("bool", None),
    "ints": ("std::span<const int>", "int"),
    "strs": ("std::span<const std::string_view>", "std::string_view"),
}


class DataError(Exception):
    """The data file or the table spec is wrong; the message is one line."""


class _Missing(DataError):
    """PATH names a key the data lacks: an error, unless the field is optional."""


def _camel(name):
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _split_spec(spec, what, typed=True):
    """NAME=PATH[:TYPE] -> (name, path, type)."""
    name, eq, rest = spec.partition("=")
    path, colon, type_ = rest.rpartition(":") if typed else (rest, "", None)
    if not eq or not name.isidentifier() or (typed and (not colon or type_.removesuffix("?") not in TYPES)):
        form = "NAME=PATH:TYPE with TYPE in " + ", ".join(TYPES) + " (TYPE? optional)" if typed else "NAME=PATTERN"
        raise DataError(f"{what}: expected {form}, got {spec!r}")
    return name, path, type_


def _children(node):
    if isinstance(node, dict):
        return [(k, node[k]) for k in sorted(node)]
    if isinstance(node, list):
        return list(enumerate(node))
    return None


def _rows(data, pattern, src):
    """Every (path, keys) the pattern matches: path is the list of keys from the top."""
    found = [([], [])]
    for step in pattern.split("/") if pattern else []:
        nxt = []
        for path, keys in found:
            node = _at(data, path)
            if step == "*":
                kids = _children(node)
                if kids is None:
                    raise DataError(f"{src}: {_label(path)}: expected an object or a list for '*', got {_short(node)}")
                nxt += [(path + [k], keys + [k]) for k, _ in kids]
            else:
                if not isinstance(node, dict) or step not in node:
                    raise DataError(f"{src}: {_label(path)}: expected a key {step!r}, got {_short(node)}")
                nxt.append((path + [step], keys))
        found = nxt
    return found


def _at(data, path):
    for key in path:
        data = data[key]
    return data


def _label(path):
    return "/".join(str(k) for k in path) or "(top)"


def _short(value):
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _resolve(data, row, keys, sel, where):
    """The value SEL names, relative to the row at `row` (a key path)."""
    if sel.startswith("@"):
        if not sel[1:].isdigit() or int(sel[1:]) >= len(keys):
            raise DataError(f"{where}: expected @N with N below {len(keys)} (one per '*'), got {sel!r}")
        return keys[int(sel[1:])]
    path = list(row)
    for step in sel.split("/"):
        if step == ".":
            continue
        if step == "..":
            if not path:
                raise DataError(f"{where}: '..' goes above the top of the file")
            path.pop()
            continue
        node = _at(data, path)
        if not isinstance(node, dict) or step not in node:
            raise _Missing(f"{where}: expected a key {step!r} at {_label(path)}, got {_short(node)}")
        path.append(step)
    return _at(data, path)


# TYPE -> does a JSON value have its kind (so an optional field takes it)?
_KIND: dict = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "ints": lambda v: isinstance(v, list) and (not v or _KIND["int"](v[0])),
    "strs": lambda v: isinstance(v, list) and (not v or isinstance(v[0], str)),
}


def _optional(data, row, keys, sel, type_, where):
    """The value at SEL if it has TYPE's kind, else None (an optional field)."""
    try:
        value = _resolve(data, row, keys, sel, where)
    except _Missing:
        return None
    return value if _KIND[type_](value) else None


def _check(value, type_, where):
    def is_int(x):
        return isinstance(x, int) and not isinstance(x, bool) and INT_MIN <= x <= INT_MAX

    def is_str(x):
        return isinstance(x, str) and all(" " <= c <= "~" for c in x)

    ok = {
        "int": is_int(value),
        "str": is_str(value),
        "bool": isinstance(value, bool),
        "ints": isinstance(value, list) and all(is_int(x) for x in value),
        "strs": isinstance(value, list) and all(is_str(x) for x in value),
    }[type_]
    if not ok:
        expected = {
            "int": "a 32-bit integer",
            "str": "a string of printable ASCII",
            "bool": "true or false",
            "ints": "a list of 32-bit integers",
            "strs": "a list of printable ASCII strings",
        }[type_]
        raise DataError(f"{where}: expected {expected}, got {_short(value)}; fix the entry")


def _member(typed):
    member = TYPES[typed.removesuffix("?")][0]
    return f"std::optional<{member}>" if typed.endswith("?") else member


def _literal(value):
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def generate(src, text, namespace, tables, consts):
    """The header's text. tables: [(name, pattern, [(field, path, type)])];
    consts: [(name, path, type)]."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise DataError(f"{src}: expected JSON, got an error at line {e.lineno} column {e.colno}: {e.msg}") from None
    optional = any(t.endswith("?") for _, _, fields in tables for _, _, t in fields)
    out = (
        [
            f"// Generated from {src} by //platform/cpp/gen:datagen. Do not edit.",
            "#pragma once",
            "",
        ]
        + (["#include <optional>"] if optional else [])
        + [
            "#include <span>",
            "#include <string_view>",
            "",
            f"namespace {namespace} {{",
        ]
    )
    for name, pattern, fields in tables:
        if not fields:
            raise DataError(f"table {name}: expected at least one --field after --table")
        struct, array = _camel(name) + "Row", "k" + _camel(name)
        rows = _rows(data, pattern, src)
        if not rows:
            raise DataError(f"{src}: table {name}: expected at least one row for {pattern!r}, got none")
        out += ["", f"struct {struct} {{"] + [f"  {_member(t)} {f};" for f, _, t in fields] + ["};"]
        inits, storage = [], []
        for i, (path, keys) in enumerate(rows):
            cells = []
            for field, sel, typed in fields:
                where = f"{src}: {_label(path)}: {field} ({sel})"
                type_ = typed.removesuffix("?")
                if type_ != typed:
                    value = _optional(data, path, keys, sel, type_, where)
                    if value is None:
                        cells.append("std::nullopt")
                        continue
                else:
                    value = _resolve(data, path, keys, sel, where)
                _check(value, type_, where)
                elem = TYPES[type_][1]
                if elem is None:
                    cells.append(_literal(value))
                elif not value:
                    # `{}` would make an optional field std::nullopt, not an empty list.
                    cells.append(f"{TYPES[type_][0]}{{}}" if type_ != typed else "{}")
                else:
                    name_ = f"{array}_{i}_{field}"
                    storage.append(f"inline constexpr {elem} {name_}[] = {{{', '.join(_literal(v) for v in value)}}};")
                    cells.append(name_)
            inits.append(f"    {{{', '.join(cells)}}},")
        out += ([""] + storage if storage else []) + ["", f"inline constexpr {struct} {array}[] = {{"] + inits + ["};"]
    for name, sel, type_ in consts:
        if type_ not in TYPES or TYPES[type_][1] is not None:
            raise DataError(f"--const {name}: expected TYPE int, str or bool, got {type_}")
        where = f"{src}: --const {name} ({sel})"
        value = _resolve(data, [], [], sel, where)
        _check(value, type_, where)
        out += ["", f"inline constexpr {TYPES[type_][0]} {name} = {_literal(value)};"]
    out += ["", f"}}  // namespace {namespace}", ""]
    return "\n".join(out)


class _Table(argparse.Action):
    def __call__(self, parser, ns, value, option_string=None):
        name, pattern, _ = _split_spec(value, "--table", typed=False)
        ns.tables.append((name, pattern, []))


class _Field(argparse.Action):
    def __call__(self, parser, ns, value, option_string=None):
        if not ns.tables:
            raise DataError(f"--field {value}: expected a --table before it")
        ns.tables[-1][2].append(_split_spec(value, "--field"))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--src", required=True, help="the JSON data file")
    p.add_argument("--out", required=True, help="the header to write")
    p.add_argument("--namespace", required=True)
    p.add_argument("--table", action=_Table, default=[], dest="tables", metavar="NAME=PATTERN")
    p.add_argument("--field", action=_Field, metavar="NAME=PATH:TYPE")
    p.add_argument("--const", action="append", default=[], metavar="NAME=PATH:TYPE")
    try:
        args = p.parse_args(argv)
        consts = [_split_spec(c, "--const") for c in args.const]
        with open(args.src, encoding="utf-8") as f:
            text = f.read()
        header = generate(args.src, text, args.namespace, args.tables, consts)
        atomic.write_atomic(args.out, header.encode())
    except (DataError, OSError, UnicodeDecodeError, atomic.OutputError) as e:
        print(f"datagen: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
