"""No test drops out silently (run by tools/checks/no_drop.sh).

Fails when a test target carries `manual` (test_suites and the layering
probes aside: they are not test rules, or are meant to fail); when a family
of the registry lacks a golden or validity test for a flavor its cases claim
(a flavor whose LLVM knows a case's arch); when the registry and the
rocke_family targets disagree; when a family's golden test has no
byte-identity twin although the family is not in the registry's PYTHON_ONLY
(or has one although it is); and when a file under goldens/ belongs to no
live golden target (an orphan: its gate was dropped, so nothing reads it).

    no_drop.py --queries DIR --checkout DIR

DIR holds the outputs of the `bazel query` calls no_drop.sh makes (one label
per line): manual_tests.txt, unwrapped_manual_tests.txt (manual tests that
no other test runs), golden_tests.txt, validity_tests.txt,
identity_tests.txt, and emitters.txt ("LABEL MODULE" per rocke_family emit genrule).
Prints "PASS name" / "FAIL name: ..." and "checks: P passed, F failed".
"""

import argparse
import os
import re
import sys

# goldens/<package>/<family>.<flavor>.golden and goldens/<package>/<family>.<flavor>/<case>.ll
_GOLDEN_FILE = re.compile(r"^goldens/(?P<pkg>.+)/(?P<family>[A-Za-z0-9_]+)\.(?P<flavor>llvm\d+)(\.golden|/[^/]+\.ll)$")
_EMITTER = re.compile(r"^//(?P<pkg>[^:]*):(?P<family>.+)_emit_(?P<flavor>llvm\d+) (?P<module>\S+)$")


def missing_gates(families, golden, validity):
    """families: {(pkg, name): claimed flavors}. The golden/validity tests
    that a claimed flavor needs and that do not exist (or are manual)."""
    missing = []
    for (pkg, name), flavors in sorted(families.items()):
        for flavor in sorted(flavors):
            for kind, live in (("golden", golden), ("validity", validity)):
                label = f"//{pkg}:{name}_{kind}_{flavor}"
                if label not in live:
                    missing.append(label)
    return missing


def orphans(golden_files, golden):
    """Files under goldens/ that no live golden test reads."""
    lost = []
    for path in sorted(golden_files):
        if os.path.basename(path) == "BUILD.bazel":
            continue
        m = _GOLDEN_FILE.match(path)
        if not m or f"//{m['pkg']}:{m['family']}_golden_{m['flavor']}" not in golden:
            lost.append(path)
    return lost


def registry_mismatch(registry, emitter_modules):
    """(in the registry but no rocke_family, rocke_family not in the registry)."""
    return sorted(set(registry) - set(emitter_modules)), sorted(set(emitter_modules) - set(registry))


def identity_mismatch(modules, golden, identity, python_only, registry):
    """Byte-identity tests that should exist and do not, or exist for a
    family the registry says has no C++ engine; and PYTHON_ONLY entries that
    name no registered family. modules: {(pkg, name): module}."""
    problems = [f"PYTHON_ONLY names {m}, which is not in FAMILIES" for m in python_only if m not in registry]
    for (pkg, name), module in sorted(modules.items()):
        for label in sorted(g for g in golden if g.startswith(f"//{pkg}:{name}_golden_")):
            twin = label.replace("_golden_", "_byte_identity_")
            if module in python_only and twin in identity:
                problems.append(f"{twin} exists, but PYTHON_ONLY lists {module}: drop it from PYTHON_ONLY")
            elif module not in python_only and twin not in identity:
                problems.append(
                    f"{twin} is missing: give the rocke_family a cpp_engine, or list {module} in PYTHON_ONLY"
                )
    return problems


# What a package's style test checks (tools/style/style.bzl).
STYLED = (".py", ".c", ".cc", ".h")


def unstyled(style_tests, files):
    """The packages (folders with a BUILD file) holding sources that no style
    test checks: `style_tests` are test labels, `files` the tracked paths."""
    packages = {os.path.dirname(f) for f in files if os.path.basename(f) in ("BUILD", "BUILD.bazel")}
    styled = {label[2:].split(":")[0] for label in style_tests}
    sourced = {os.path.dirname(f) for f in files if f.endswith(STYLED) and os.path.dirname(f) in packages}
    return sorted(f"//{p}" for p in sourced - styled)


def _lines(folder, name):
    with open(os.path.join(folder, name)) as f:
        return {line.strip() for line in f if line.strip()}


def _claimed(modules_by_family):
    """(pkg, name) -> the flavors whose LLVM knows one of the family's archs."""
    from family import family as families
    from lower.flavors import supporting

    claimed = {}
    for key, module in modules_by_family.items():
        fam = families.load(module)
        claimed[key] = {f for case in fam.cases for f in supporting(case.arch)}
    return claimed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--checkout", required=True)
    args = parser.parse_args(argv)
    import rocke_families

    golden, validity = _lines(args.queries, "golden_tests.txt"), _lines(args.queries, "validity_tests.txt")
    manual = _lines(args.queries, "manual_tests.txt")
    identity = _lines(args.queries, "identity_tests.txt") - manual
    golden, validity = golden - manual, validity - manual
    modules = {}
    for line in _lines(args.queries, "emitters.txt"):
        m = _EMITTER.match(line)
        if not m:  # a misparsed line would drop a family from every check below
            print(f"FAIL no-drop: cannot read the rocke_family emit genrule {line!r}; fix no_drop.sh's parsing")
            print("checks: 0 passed, 1 failed")
            return 1
        modules[(m["pkg"], m["family"])] = m["module"]
    golden_files = [
        os.path.relpath(os.path.join(d, n), args.checkout)
        for d, _, names in os.walk(os.path.join(args.checkout, "goldens"))
        for n in names
    ]
    unregistered, unbuilt = registry_mismatch(rocke_families.FAMILIES, set(modules.values()))
    results = [
        (
            "no test target is tagged manual, unless another test runs it",
            sorted(_lines(args.queries, "unwrapped_manual_tests.txt")),
            "remove the manual tag (or make it a test_suite)",
        ),
        (
            "registry and rocke_family targets agree",
            [f"in the registry, no rocke_family: {m}" for m in unregistered]
            + [f"a rocke_family not in library/rocke_families.py: {m}" for m in unbuilt],
            "add the family to both",
        ),
        (
            "every family has golden and validity tests for every flavor its cases claim",
            missing_gates(_claimed(modules), golden, validity),
            "give its rocke_family those flavors",
        ),
        (
            "every golden test has its byte-identity twin, unless PYTHON_ONLY says the family has no C++ engine",
            identity_mismatch(modules, golden, identity, rocke_families.PYTHON_ONLY, rocke_families.FAMILIES),
            "keep PYTHON_ONLY and the cpp_engine arguments in step",
        ),
        (
            "every package with Python or C++ sources has a style test",
            unstyled(_lines(args.queries, "style_tests.txt"), _lines(args.queries, "files.txt")),
            'add rocke_style_test() (load("//tools/style:style.bzl", "rocke_style_test")) to its BUILD.bazel',
        ),
        (
            "no golden file is an orphan",
            orphans(golden_files, golden),
            "delete it, or restore the golden test that reads it",
        ),
    ]
    failed = 0
    for name, problems, fix in results:
        if problems:
            failed += 1
            print(f"FAIL no-drop: {name}; {fix}:")
            for p in problems:
                print(f"    {p}")
        else:
            print(f"PASS no-drop: {name}")
    print(f"checks: {len(results) - failed} passed, {failed} failed")
    return failed


if __name__ == "__main__":
    sys.exit(main())
