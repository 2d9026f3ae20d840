"""No test drops out silently (run by tools/checks/no_drop.sh).

Fails when a test target carries `manual` (test_suites and the layering
probes aside: they are not test rules, or are meant to fail); when a
rocke_family lacks a golden or validity test for a flavor its cases claim
(a flavor whose LLVM knows a case's arch); when a rocke_family is in no
registry (its package is not in a rocke_registry's `packages`); when a
family's golden test has no byte-identity twin although its rocke_family has
a cpp_library (or has one although it has none), or no NAME_engines test
(library_family: both engines in-process); and when a file under
goldens/ belongs to no live golden target (an orphan: its gate was dropped,
so nothing reads it).

    no_drop.py --queries DIR --bin DIR --checkout DIR

--queries holds the outputs of the `bazel query` calls no_drop.sh makes (one
label per line): manual_tests.txt, unwrapped_manual_tests.txt (manual tests
that no other test runs), golden_tests.txt, validity_tests.txt,
identity_tests.txt, engines_tests.txt, style_tests.txt, unregistered.txt (rocke_family entries
no rocke_registry reaches), files.txt (the tracked files), and families.xml
(every rocke_family's entry, `bazel query --output=xml`). --bin is Bazel's
output folder, holding each family's built PKG/NAME.cases.json.
Prints "PASS name" / "FAIL name: ..." and "checks: P passed, F failed".
"""

import argparse
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

# goldens/<package>/<family>.<flavor>.golden and goldens/<package>/<family>.<flavor>/<case>.ll
_GOLDEN_FILE = re.compile(r"^goldens/(?P<pkg>.+)/(?P<family>[A-Za-z0-9_]+)\.(?P<flavor>llvm\d+)(\.golden|/[^/]+\.ll)$")


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


def families_of(query_xml):
    """{(pkg, name): has a C++ engine} of the rocke_family entries in
    `bazel query --output=xml` text (platform/build_defs/family.bzl's
    _family_entry rules)."""
    families = {}
    for rule in ET.fromstring(query_xml).iter("rule"):
        pkg = rule.get("name", "")[2:].split(":")[0]
        attrs = {a.get("name"): a.get("value") for a in rule.iter("string")}
        families[(pkg, attrs["family"])] = bool(attrs.get("cpp_library"))
    return families


def identity_mismatch(families, golden, identity):
    """Byte-identity tests that should exist and do not, or exist for a
    family whose rocke_family has no cpp_library. families: {(pkg, name):
    has a C++ engine}."""
    problems = []
    for (pkg, name), cpp in sorted(families.items()):
        for label in sorted(g for g in golden if g.startswith(f"//{pkg}:{name}_golden_")):
            twin = label.replace("_golden_", "_byte_identity_")
            if not cpp and twin in identity:
                problems.append(f"{twin} exists, but its rocke_family has no cpp_library")
            elif cpp and twin not in identity:
                problems.append(f"{twin} is missing, though its rocke_family has a cpp_library")
    return problems


def engines_missing(families, engines):
    """The NAME_engines tests (tagged engines) that a family with a C++ engine
    lacks. families: {(pkg, name): has a C++ engine}."""
    return [
        f"//{pkg}:{name}_engines"
        for (pkg, name), cpp in sorted(families.items())
        if cpp and f"//{pkg}:{name}_engines" not in engines
    ]


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


def claimed(families, bin_dir):
    """(pkg, name) -> the flavors whose LLVM knows one of the family's archs,
    from its case list bin_dir/PKG/NAME.cases.json."""
    from lower.flavors import supporting

    out = {}
    for pkg, name in families:
        with open(os.path.join(bin_dir, pkg, name + ".cases.json"), encoding="utf-8") as f:
            cases = json.load(f)["cases"]
        out[(pkg, name)] = {flavor for case in cases for flavor in supporting(case["arch"])}
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--checkout", required=True)
    args = parser.parse_args(argv)

    golden, validity = _lines(args.queries, "golden_tests.txt"), _lines(args.queries, "validity_tests.txt")
    manual = _lines(args.queries, "manual_tests.txt")
    identity = _lines(args.queries, "identity_tests.txt") - manual
    engines = _lines(args.queries, "engines_tests.txt") - manual
    golden, validity = golden - manual, validity - manual
    with open(os.path.join(args.queries, "families.xml"), encoding="utf-8") as f:
        families = families_of(f.read())
    if not families:  # a query that matched nothing would pass every family check below
        print(
            "FAIL no-drop: expected rocke_family entries in the query's families.xml, got none; fix no_drop.sh's query"
        )
        print("checks: 0 passed, 1 failed")
        return 1
    golden_files = [
        os.path.relpath(os.path.join(d, n), args.checkout)
        for d, _, names in os.walk(os.path.join(args.checkout, "goldens"))
        for n in names
    ]
    results = [
        (
            "no test target is tagged manual, unless another test runs it",
            sorted(_lines(args.queries, "unwrapped_manual_tests.txt")),
            "remove the manual tag (or make it a test_suite)",
        ),
        (
            "every rocke_family is in a registry",
            sorted(_lines(args.queries, "unregistered.txt")),
            "add its package to the `packages` of the rocke_registry (library/BUILD.bazel)",
        ),
        (
            "every family has golden and validity tests for every flavor its cases claim",
            missing_gates(claimed(families, args.bin), golden, validity),
            "give its rocke_family those flavors",
        ),
        (
            "every golden test has its byte-identity twin when the family has a C++ engine, and only then",
            identity_mismatch(families, golden, identity),
            "keep the byte_identity tests live (no manual tag); rocke_family creates them from cpp_library",
        ),
        (
            "every family with a C++ engine compares the two engines in its NAME_engines test",
            engines_missing(families, engines),
            "declare it with library_family (library/family.bzl), which creates that test",
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
