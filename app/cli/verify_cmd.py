"""Re-verifies a catalog folder's code objects as they are on disk.

    rocke verify resnet50-catalog
    rocke verify resnet50-catalog --workgroups 8 --seed 3

DIR is a folder `rocke build --out` wrote: index.json names each kernel's
problem, arch, flavor, family, spec, code object and sha256. The kernels of
every distinct problem run in the emulator once (verify.problems), as `rocke
build --verify` runs them (app/catalog/verify.py: the same sampling, inputs
and comparison; a split-K layer's reduce fed by its split kernel), with the index's seed and workgroups when it has them
(--seed and --workgroups choose others). Each row gets a line: ok, a
mismatch (its largest error and first wrong element) or an error of the
emulator; a code object whose sha256 is not the index's is run all the same
and said so (a copy, a transfer or a suspected corruption is what this
checks). Exit status 1 if a row does not compute the right numbers, each
named on stderr; 2 for a folder without a readable catalog index, a row
without the fields a check needs (an index older than the "spec" column:
rebuild it), or a code object that is missing or unreadable.
"""

import hashlib
import os
import sys
import time

from catalog import index, verify
from catalog.progress import Progress

from app.cli.inputs import Refused, load_family, toolchain_for
from app.cli.isa_catalog import read_document

HELP = "re-verify a catalog folder's code objects in the emulator against numpy"

# The fields of a row that a check reads.
FIELDS = ("path", "sha256", "arch", "flavor", "family", "kernel")


def add_arguments(parser):
    parser.add_argument("folder", metavar="DIR", help="a catalog folder (rocke build --out)")
    parser.add_argument("--workgroups", type=int, help="output tiles per kernel (default: the index's, else 4)")
    parser.add_argument("--seed", type=int, help="the inputs' and tiles' seed (default: the index's, else 0)")


def _fail(message):
    print(f"rocke verify: {message}", file=sys.stderr)
    return 2


def _count(n, one, many=None):
    return f"{n} {one if n == 1 else many or one + 's'}"


def _where(row):
    return f"problems[{row.get('problem')}] {row.get('name')} on {row.get('arch')}, {row.get('family')}"


def _files(folder, rows):
    """{path: the code object's bytes} of every row; Refused naming the row
    whose fields are missing or whose code object cannot be read."""
    files = {}
    for n, row in enumerate(rows):
        missing = [c for c in FIELDS if not isinstance(row.get(c), str)]
        if not isinstance(row.get("spec"), dict):
            missing.append("spec")
        if missing:
            raise Refused(
                f"DIR: index.json kernels[{n}] ({_where(row)}): expected the fields {', '.join(missing)}, got none; "
                "rebuild the catalog with this rocke build"
            )
        if row["path"] not in files:
            file = os.path.join(folder, row["path"])
            try:
                with open(file, "rb") as f:
                    files[row["path"]] = f.read()
            except OSError as e:
                raise Refused(
                    f"DIR: index.json kernels[{n}] ({_where(row)}) names {file}, which cannot be read "
                    f"({e.strerror}); restore the file or rebuild the catalog (rocke build --out)"
                ) from None
    return files


def _kernel(args, row, data):
    """The verify.Kernel of a row; Refused naming it if its spec is not its family's."""
    fam = load_family(args.families, row["family"])
    try:
        spec = verify.spec_of(fam, row["spec"])
    except ValueError as e:
        raise Refused(f"DIR: {row['path']} ({_where(row)}): {e}; rebuild the catalog") from None
    return verify.Kernel(fam, spec, row["arch"], data, row["kernel"], toolchain_for(row["flavor"]), row["path"])


def _settings(doc, args):
    """catalog.verify.settings from the command line, else the index's, else the defaults."""
    stored = doc.get("verify") if isinstance(doc.get("verify"), dict) else {}
    workgroups = args.workgroups if args.workgroups is not None else stored.get("workgroups", verify.WORKGROUPS)
    seed = args.seed if args.seed is not None else stored.get("seed", verify.SEED)
    try:
        return verify.settings(workgroups, seed)
    except ValueError as e:
        raise Refused(f"--workgroups/--seed: {e}") from None


def run(args):
    try:
        return _run(args)
    except Refused as e:
        return _fail(str(e))


def _run(args):
    folder = os.path.join(os.environ.get("BUILD_WORKING_DIRECTORY", ""), args.folder)
    doc = read_document(folder, "DIR")
    settings = _settings(doc, args)
    files = _files(folder, doc["kernels"])
    problems = verify.problems(doc["kernels"])
    checked = {}
    progress = Progress(len({key for key, _ in problems}), sys.stderr)
    bad, lines = [], []
    for key, group in problems:
        if key not in checked:
            start = time.monotonic()
            checked[key] = verify.check_problem(
                [_kernel(args, r, files[r["path"]]) for r in group], settings, model=False
            )
            seconds = time.monotonic() - start
            what = " then ".join(f"{r['family']} {r['path']}" for r in group)
            cells = ", ".join(index.verify_cell(result) for result in checked[key])
            progress.step(f"verified {what}: {cells} ({seconds:.2f} s)")
        for r, result in zip(group, checked[key]):
            changed = hashlib.sha256(files[r["path"]]).hexdigest() != r["sha256"]
            note = " (its sha256 is not the index's)" if changed else ""
            lines.append(f"{index.verify_cell(result):<10}  {_where(r)}  {r['path']}{note}")
            if result["result"] != "ok":
                bad.append(f"rocke verify: {_where(r)} ({r['path']}){note}: {verify.text(result)}")
    print("\n".join(lines))
    rows = len(doc["kernels"])
    launches = sum(len(key) for key in checked)
    seed, workgroups = settings["seed"], settings["workgroups"]
    print(
        f"{_count(len(files), 'code object')} of {rows} rows verified in "
        f"{_count(launches, 'launch', 'launches')} "
        f"({workgroups} tiles each, seed {seed}): "
        f"{len(bad)} of {rows} rows wrong; {folder}"
    )
    for line in bad:
        print(line, file=sys.stderr)
    return 1 if bad else 0
