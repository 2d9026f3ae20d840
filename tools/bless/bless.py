"""bless: re-bless the goldens of the families under some Bazel patterns.

    ./bazel run //tools:bless -- //library/conv/...
    ./bazel run //tools:bless -- --check //...
    ./bazel run //tools:bless

(PATTERN... defaults to //...)

Finds the golden tests under the patterns with `bazel query` (tag golden),
builds their emit targets, and writes each family's NAME.FLAVOR.golden and
the IR of its representative cases (NAME.FLAVOR/CASE.ll, the cases marked
ir=kept) under goldens/<package>/, removing IR files no longer kept.

- A corrupt golden (a merge conflict, garbage, a cut-short file, a duplicate
  case) is replaced by the emitted one, and bless says what it replaced.
- Every write is atomic: a `.bless-*` temp file in the same folder, mode
  0644, fsynced, renamed over the old file, then the folder fsynced. A bless
  that is killed leaves each file old or new, never torn; the temp files it
  leaves are removed by the next bless, which says so. A bless holds a lock
  on goldens/, so it never removes the temp file of one still running.
- It refuses to write outside goldens/.

--check writes nothing and reports what would change. Exit status: 0 done
(with --check: nothing would change), 1 with --check: something would
change, 2 something could not be read or built (under --check this includes
a corrupt golden; plain bless replaces it).
"""

import contextlib
import fcntl
import json
import os
import sys
import traceback

from family import manifest
from files.atomic import OutputError, sync_folder, write_atomic
from tools.bazel_cmd import bazel_cmd
from tools.entry import entry

TEMP_PREFIX = ".bless-"


class BlessError(Exception):
    pass


def log(message):
    print(f"bless: {message}", file=sys.stderr)


def bazel(ws, *args):
    return bazel_cmd.run(ws, args, BlessError)


def golden_tests(ws, patterns):
    expr = bazel_cmd.has_tag("golden", f"tests({' + '.join(patterns)})")
    labels = [l for l in bazel(ws, "query", "--output=label", expr).splitlines() if l]
    if not labels:
        raise BlessError(
            f"no golden test matches {' '.join(patterns)}: nothing to bless. Is the pattern right? (try //library/...)"
        )
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
        self.unreadable = []  # goldens --check could not read

    @contextlib.contextmanager
    def locked(self):
        """Hold goldens/ while blessing (shared for --check). The kernel
        drops the lock when the block ends or the process dies."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            try:
                fcntl.flock(fd, (fcntl.LOCK_SH if self.check else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            except BlockingIOError:
                raise BlessError(
                    f"another bless is using {self.root}; wait for it to finish, then run this again"
                ) from None
            yield
        finally:
            os.close(fd)

    def remove_leftovers(self):
        """Temp files of a bless killed mid-write: under the lock no other
        bless is writing, so every one of them is a leftover."""
        found = sorted(
            os.path.join(d, f) for d, _, files in os.walk(self.root) for f in files if f.startswith(TEMP_PREFIX)
        )
        for path in found:
            log(
                f"{'would remove' if self.check else 'removing'} {os.path.relpath(path, os.path.dirname(self.root))}, left by an interrupted bless"
            )
            if not self.check:
                os.remove(path)
                sync_folder(os.path.dirname(path))
        self.writes += len(found)

    def guard(self, path):
        real = os.path.realpath(path)
        if not real.startswith(self.root + os.sep):
            raise BlessError(f"refusing to write {path}: outside {self.root}. Goldens live only under goldens/.")
        return real

    def write(self, path, text):
        path, data = self.guard(path), text.encode()
        if os.path.exists(path):
            with open(path, "rb") as f:
                if f.read() == data:
                    return False
        if not self.check:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            try:
                write_atomic(path, data, prefix=TEMP_PREFIX)
            except OutputError as e:
                raise BlessError(str(e)) from None
        self.writes += 1
        return True

    def remove(self, path):
        path = self.guard(path)
        if not self.check:
            os.remove(path)
            sync_folder(os.path.dirname(path))
        self.writes += 1

    def read_golden(self, path, label):
        """(blessed entries, state): state is "new" for a missing golden and
        "corrupt" for one that cannot be read (said), whose entries are {}."""
        if not os.path.exists(path):
            return {}, "new"
        try:
            return manifest.read(path, manifest.golden_fix(label)), "read"
        except manifest.ManifestError as e:
            if self.check:
                log(f"cannot read {e.place}: {e.reason}. Plain bless replaces it: {manifest.bless_command(label)}")
                self.unreadable.append(path)
            else:
                log(f"replacing corrupt {e.place} ({e.reason}) with the emitted manifest")
            return {}, "corrupt"


def bless_one(ws, writer, label):
    pkg, name, flavor = split(label)
    out = os.path.join(ws, "bazel-bin", pkg)
    emitted = os.path.join(out, f"{name}.{flavor}.manifest")
    with open(emitted, "rb") as f:
        data = f.read()
    new = manifest.parse(data, emitted, manifest.EMITTED_FIX)
    with open(os.path.join(out, f"{name}.{flavor}.irs.json")) as f:
        irs = json.load(f)
    golden = os.path.join(ws, "goldens", pkg, f"{name}.{flavor}.golden")
    old, state = writer.read_golden(golden, label)
    changed = sum(1 for i in new.keys() & old.keys() if new[i] != old[i])
    added, missing = len(new.keys() - old.keys()), len(old.keys() - new.keys())
    rewritten = writer.write(golden, data.decode())
    # The file's fate, apart from its cases: a header-only change rewrites it too.
    golden_file = {"new": "new", "corrupt": "replaced"}.get(state, "rewritten" if rewritten else "same")
    ir_dir = golden[: -len(".golden")]
    keep = {f"{i}.ll": manifest.ir_file(irs[i], label) for i, e in new.items() if e.kept}
    ir_changes = sum(writer.write(os.path.join(ir_dir, fname), text) for fname, text in sorted(keep.items()))
    if os.path.isdir(ir_dir):
        for stale in sorted(set(os.listdir(ir_dir)) - set(keep)):
            if not stale.startswith(TEMP_PREFIX):  # remove_leftovers' business
                writer.remove(os.path.join(ir_dir, stale))
                ir_changes += 1
    return [name, flavor, golden_file, changed, added, missing, len(new) - changed - added, ir_changes]


def parser():
    p = entry.parser(prog="bless", description=__doc__)
    p.add_argument("--check", action="store_true", help="report what would change; write nothing")
    p.add_argument("patterns", nargs="*", default=["//..."])
    return p


def blessed(args):
    ws = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not ws:
        print("bless: run me through Bazel: ./bazel run //tools:bless -- PATTERN...", file=sys.stderr)
        return 2
    try:
        log(f"finding golden tests under {' '.join(args.patterns)}")
        labels = golden_tests(ws, args.patterns)
        emits = [l.replace("_golden_", "_emit_") for l in labels]
        log(f"building {len(emits)} emit targets")
        bazel(ws, "build", *emits)
        writer = Writer(ws, args.check)
        with writer.locked():
            writer.remove_leftovers()
            rows = [bless_one(ws, writer, label) for label in labels]
    except (BlessError, OSError, ValueError) as e:  # ValueError: a corrupt emitted manifest or IR file
        log(str(e))
        return 2
    head = ["family", "flavor", "golden file", "changed", "new", "missing", "unchanged", "IR files"]
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    print(f"bless: {writer.writes} file(s) {'would change' if args.check else 'changed'} under goldens/")
    if writer.unreadable:
        log(f"{len(writer.unreadable)} golden(s) could not be read (see above)")
        return 2
    return 1 if args.check and writer.writes else 0


def run(argv=None):
    """bless with `argv` (without the program name); its exit status."""
    return guarded(parser().parse_args(argv))


def guarded(args):
    """blessed, except that a bug exits 2 as well: 1 means "would change"."""
    try:
        return blessed(args)
    except Exception:
        traceback.print_exc()
        log("internal error: the traceback above is a bug in bless")
        return 2


if __name__ == "__main__":
    entry.main(parser, guarded)
