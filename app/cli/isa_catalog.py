"""`rocke isa --catalog DIR`: the main-loop figures of every code object of a
catalog folder, as `rocke build` writes it (index.json and the code objects
its rows name).

Each code object is read once, whichever rows it serves (rows of one kernel
name one code object): disassembled by the llvm-objdump of its row's flavor
(llvm20's is LLVM 22's, as for `rocke isa FAMILY`), its kernel's main loop
measured as docs/rocke-command.md defines it (platform/isa/metrics.py), its
VGPRs and occupancy taken from the row's figures (the code object's
metadata, read when it was built). Before any is read, every row's code
object must be there with the row's sha256: a catalog that disagrees with
its index is refused, naming the row.
"""

import hashlib
import json
import os

from catalog import index
from catalog.progress import Progress
from isa import metrics
from isa.counts import ShapeError
from isa.objdump import ObjdumpError
from toolchains.llvm.llvm import LlvmError
from app.cli.inputs import Refused, toolchain_for

# The row's figures each code object reports (catalog/kernel.py FIGURES).
RESOURCES = ("vgpr", "agpr", "sgpr", "lds", "scratch", "vgpr_spill", "sgpr_spill", "occupancy", "waves")


def read_index(folder, what="--catalog"):
    """index.json's rows; Refused when there is none or it is not a catalog index."""
    return read_document(folder, what)["kernels"]


def read_document(folder, what="--catalog"):
    """index.json as a JSON value; Refused, naming `what` (the command's
    argument), when there is none or it is not a catalog index."""
    path = os.path.join(folder, "index.json")
    if not os.path.isdir(folder):
        raise Refused(f"{what}: expected a catalog folder (rocke build --out), got {folder!r}, which is no folder")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise Refused(
            f"{what}: expected {path}, got a folder without index.json; give the folder `rocke build --out` wrote"
        ) from None
    except (OSError, ValueError) as e:
        raise Refused(f"{what}: cannot read {path}: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != index.FORMAT or not isinstance(doc.get("kernels"), list):
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise Refused(
            f'{what}: expected {path} of format "{index.FORMAT}" with a "kernels" list, got {got!r}; '
            "rebuild the catalog with this rocke build"
        )
    return doc


def _row_name(n, row):
    return f"index.json kernels[{n}] (problems[{row.get('problem')}] {row.get('name')}, {row.get('arch')}, {row.get('family')})"


def code_objects(folder, rows, what="--catalog"):
    """[(path, [rows it serves])] in index order; Refused, naming the row, when
    a row lacks a field, or its code object is missing or has another sha256."""
    by_path = {}
    for n, row in enumerate(rows):
        missing = [c for c in ("path", "sha256", "arch", "flavor", "kernel") if not isinstance(row.get(c), str)]
        if missing:
            raise Refused(f"{what}: {_row_name(n, row)}: expected the fields {', '.join(missing)}, got none")
        file = os.path.join(folder, row["path"])
        try:
            with open(file, "rb") as f:
                sha256 = hashlib.sha256(f.read()).hexdigest()
        except OSError as e:
            raise Refused(
                f"{what}: {_row_name(n, row)} names {file}, which cannot be read ({e.strerror}); "
                "rebuild the catalog (rocke build --out) or restore the file"
            ) from None
        if sha256 != row["sha256"]:
            raise Refused(
                f"{what}: {_row_name(n, row)} names {file} with sha256 {row['sha256']}, got a file of sha256 "
                f"{sha256}; rebuild the catalog (rocke build --out): the file is not the one its index lists"
            )
        by_path.setdefault(row["path"], []).append(row)
    return list(by_path.items())


def measure(folder, path, rows):
    """One code object's entry: what it is, its main loop's figures, the row's resources."""
    first = rows[0]
    tc = toolchain_for(first["flavor"])
    with open(os.path.join(folder, path), "rb") as f:
        code_object = f.read()
    try:
        loop = metrics.main_loop(tc.disassemble(code_object, first["arch"]), first["kernel"], first["arch"])
    except (LlvmError, ObjdumpError, ShapeError) as e:
        raise Refused(f"--catalog: {path}: {e}") from None
    return {
        "path": path,
        "kernel": first["kernel"],
        "arch": first["arch"],
        "flavor": first["flavor"],
        "family": first.get("family"),
        "names": [r.get("name") for r in rows],
        "main_loop": loop,
        "resources": {figure: first.get(figure) for figure in RESOURCES},
    }


def report(folder, progress_stream):
    """The --catalog report as a JSON value; Refused for anything a user can cause.
    Progress goes to `progress_stream`, a line (or a rewritten one) per code object."""
    objects = code_objects(folder, read_index(folder))
    progress = Progress(len(objects), progress_stream)
    measured = []
    for path, rows in objects:
        measured.append(measure(folder, path, rows))
        progress.step(path)
    return {"catalog": folder, "code_objects": measured}


# -- the text form ---------------------------------------------------------------

COLUMNS = (
    "code object",
    "name",
    "arch",
    "instrs",
    "matrix",
    "non-matrix/4096",
    "waits (vmcnt0)",
    "cover",
    "VGPR",
    "occ",
)


def _cells(entry):
    names = entry["names"]
    name = names[0] + (f" +{len(names) - 1}" if len(names) > 1 else "")
    res = entry["resources"]
    tail = (
        "-" if res["vgpr"] is None else str(res["vgpr"]),
        "-" if res["occupancy"] is None else str(res["occupancy"]),
    )
    loop = entry["main_loop"]
    if loop is None:
        return (entry["path"], name, entry["arch"], "no loop", "", "", "", "", *tail)
    per = loop["non_matrix_per_4096_macs"]
    cover = loop["cover"]
    return (
        entry["path"],
        name,
        entry["arch"],
        str(loop["loop_instructions"]),
        str(loop["matrix"]["count"]),
        "-" if per is None else per,
        f"{loop['waits']['count']} ({loop['waits']['vmcnt0']})",
        "-" if cover is None else f"{cover['count']} of {cover['of']}",
        *tail,
    )


def text(r):
    """The report as one table, a row per code object."""
    rows = [COLUMNS, *(_cells(e) for e in r["code_objects"])]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    head = (
        f"{r['catalog']}: {len(r['code_objects'])} code objects; main loop per iteration: "
        "instructions but scheduling hints, matrix instructions, non-matrix per 4096 MACs of a wave, waits "
        "(for vmcnt(0)), cover (matrix instructions before a global load's wait, least over loads); VGPR and "
        "occupancy (waves per SIMD) from the index\n"
    )
    return head + "".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n" for row in rows)
