"""Byte-identity gate: what the C++ engine emitted against what the Python
engine emitted from the same case list, byte for byte.

    identity_check --python-rk A --cpp-rk B --python-irs C --cpp-irs D \\
                   --python-manifest E --cpp-manifest F

Per case it compares the .rk text (a difference points at the builder or the
printer) and the LLVM IR (the lowering, if the .rk text is equal), then the
manifests. On a difference it names every differing case (the first
MAX_NAMED) with what differs, and prints the first differing line of each
kind for the first of them. It fails too when the two sides emitted
different case ids, or when there was nothing to compare (zero cases): a gate
that compared nothing proves nothing. Exit status 0 on a pass, 1 otherwise.
"""

import argparse
import sys

from family.texts import InputError, first_difference, load_map

MAX_NAMED = 20
SHOWN_CASES = 3  # cases whose first differing lines are printed

# Per kind: the name in messages, and what a difference points at.
KINDS = {
    "rk": (".rk text", "the builder or the printer"),
    "ll": ("LLVM IR", "the lowering"),
}


def show(what, a, b):
    number, x, y = first_difference(a, b)
    return [f"  {what}, first differing line {number}:", f"    python: {x!r}", f"    c++:    {y!r}"]


def id_problems(kind, py, cpp):
    only_py, only_cpp = sorted(py.keys() - cpp.keys()), sorted(cpp.keys() - py.keys())
    out = []
    for side, ids in (("only Python", only_py), ("only C++", only_cpp)):
        if ids:
            more = f" and {len(ids) - MAX_NAMED} more" if len(ids) > MAX_NAMED else ""
            out.append(
                f"the case ids differ: {KINDS[kind][0]} of {len(ids)} case(s) {side} emitted: {', '.join(ids[:MAX_NAMED])}{more}"
            )
    return out


def compare(maps, manifests):
    """The lines of the report and whether the gate passes."""
    problems = []
    for kind, (py, cpp) in maps.items():
        problems += id_problems(kind, py, cpp)
    if problems:
        return ["FAIL: " + p for p in problems], False
    if not maps["rk"][0]:
        return [
            "FAIL: compared nothing: zero cases were emitted; a family needs cases (see its NAME_cases list)"
        ], False
    differ = {}
    for kind, (py, cpp) in maps.items():
        for case_id in py:
            if py[case_id] != cpp[case_id]:
                differ.setdefault(case_id, []).append(kind)
    lines = []
    if differ:
        ids = sorted(differ)
        named = ", ".join(f"{i} ({' and '.join(KINDS[k][0] for k in differ[i])})" for i in ids[:MAX_NAMED])
        more = f" and {len(ids) - MAX_NAMED} more" if len(ids) > MAX_NAMED else ""
        lines.append(f"FAIL: the Python and C++ engines differ on {len(ids)} case(s): {named}{more}")
        for case_id in ids[:SHOWN_CASES]:
            lines.append(f"case {case_id}:")
            for kind in differ[case_id]:
                what, blame = KINDS[kind]
                if kind == "ll" and "rk" in differ[case_id]:
                    blame = "the .rk text first: the IR differs before it is lowered"
                lines += show(f"{what} differs (look at {blame})", maps[kind][0][case_id], maps[kind][1][case_id])
    if manifests[0] != manifests[1]:
        lines.append("FAIL: the manifests differ")
        lines += show("manifest", manifests[0], manifests[1])
    if lines:
        return lines, False
    rk, ll = maps["rk"][0], maps["ll"][0]
    return [
        f"PASS: {len(rk)} cases byte-identical (.rk text of {len(rk)}, LLVM IR of {len(ll)} lowered; manifests equal)"
    ], True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("--python-rk", "--cpp-rk", "--python-irs", "--cpp-irs", "--python-manifest", "--cpp-manifest"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args(argv)
    try:
        maps = {
            "rk": (load_map(args.python_rk), load_map(args.cpp_rk)),
            "ll": (load_map(args.python_irs), load_map(args.cpp_irs)),
        }
        manifests = []
        for path in (args.python_manifest, args.cpp_manifest):
            with open(path, "rb") as f:
                manifests.append(f.read().decode("utf-8", errors="replace"))
    except (InputError, OSError) as e:
        print(f"FAIL: {e}")
        return 1
    lines, ok = compare(maps, manifests)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
