"""bless: re-bless the goldens of the families under some Bazel patterns.

    ./bazel run //tools:bless -- [--check] [PATTERN...]      (default //...)

Finds the golden tests under the patterns with `bazel query` (tag golden),
builds their emit targets, and writes each family's NAME.FLAVOR.golden and
representative IR (NAME.FLAVOR/CASE.ll) under goldens/<package>/. Every
write is atomic (a temp file, then rename), so an interrupted bless leaves
each file old or new, never torn. It refuses to write outside goldens/.
--check reports what would change and exits 1 if anything would.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from family import manifest

GOLDEN_QUERY = 'attr(tags, "(^|[\\[ ,])golden([\\] ,]|$)", tests({}))'


class BlessError(Exception):
    pass


def bazel(ws, *args):
    proc = subprocess.run([os.path.join(ws, "bazel"), *args], cwd=ws, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BlessError(f"bazel {' '.join(args)} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc.stdout


def golden_tests(ws, patterns):
    expr = GOLDEN_QUERY.format(" + ".join(patterns))
    labels = [l for l in bazel(ws, "query", "--output=label", expr).splitlines() if l]
    if not labels:
        raise BlessError(f"no golden test matches {' '.join(patterns)}: nothing to bless. Is the pattern right? (try //library/...)")
    return sorted(labels)


def split(label):
    """//pkg:NAME_golden_FLAVOR -> (pkg, NAME, FLAVOR), as rocke_family names them."""
    pkg, target = label.lstrip("/").split(":")
    name, flavor = target.rsplit("_golden_", 1)
    return pkg, name, flavor


class Writer:
    def __init__(self, ws, check):
        self.root = os.path.realpath(os.path.join(ws, "goldens"))
        self.check = check
        self.writes = 0

    def guard(self, path):
        real = os.path.realpath(path)
        if not real.startswith(self.root + os.sep):
            raise BlessError(f"refusing to write {path}: outside {self.root}. Goldens live only under goldens/.")
        return real

    def write(self, path, text):
        path = self.guard(path)
        if os.path.exists(path) and open(path).read() == text:
            return False
        if not self.check:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".bless-")
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.replace(tmp, path)
        self.writes += 1
        return True

    def remove(self, path):
        path = self.guard(path)
        if not self.check:
            os.remove(path)
        self.writes += 1


def bless_one(ws, writer, label):
    pkg, name, flavor = split(label)
    out = os.path.join(ws, "bazel-bin", pkg)
    with open(os.path.join(out, f"{name}.{flavor}.manifest")) as f:
        text = f.read()
    with open(os.path.join(out, f"{name}.{flavor}.irs.json")) as f:
        irs = json.load(f)
    golden = os.path.join(ws, "goldens", pkg, f"{name}.{flavor}.golden")
    new = manifest.parse(text, label)
    old = manifest.parse(open(golden).read(), golden) if os.path.exists(golden) else {}
    changed = sum(1 for i in new.keys() & old.keys() if new[i] != old[i])
    added, missing = len(new.keys() - old.keys()), len(old.keys() - new.keys())
    writer.write(golden, text)
    ir_dir = golden[: -len(".golden")]
    keep = {f"{case_id}.ll": irs[case_id] for case_id in manifest.representative(new.values())}
    ir_changes = sum(writer.write(os.path.join(ir_dir, fname), ir) for fname, ir in sorted(keep.items()))
    if os.path.isdir(ir_dir):
        for stale in sorted(set(os.listdir(ir_dir)) - set(keep)):
            writer.remove(os.path.join(ir_dir, stale))
            ir_changes += 1
    return [name, flavor, changed, added, missing, len(new) - changed - added, ir_changes]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bless", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="report what would change; write nothing")
    parser.add_argument("patterns", nargs="*", default=["//..."])
    args = parser.parse_args(argv)
    ws = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not ws:
        print("bless: run me through Bazel: ./bazel run //tools:bless -- PATTERN...", file=sys.stderr)
        return 2
    try:
        print(f"bless: finding golden tests under {' '.join(args.patterns)}", file=sys.stderr)
        labels = golden_tests(ws, args.patterns)
        emits = [l.replace("_golden_", "_emit_") for l in labels]
        print(f"bless: building {len(emits)} emit targets", file=sys.stderr)
        bazel(ws, "build", *emits)
        writer = Writer(ws, args.check)
        rows = [bless_one(ws, writer, label) for label in labels]
    except BlessError as e:
        print(f"bless: {e}", file=sys.stderr)
        return 2
    head = ["family", "flavor", "changed", "new", "missing", "unchanged", "IR files"]
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    verb = "would change" if args.check else "changed"
    print(f"bless: {writer.writes} file(s) {verb} under goldens/")
    return 1 if args.check and writer.writes else 0


if __name__ == "__main__":
    sys.exit(main())
