"""A catalog's index: one row per kernel, as canonical JSON, CSV and a table.

A row is what an integrator needs to pick and load a kernel: which problem
and arch it serves, which family and config made it, its code object (path
relative to the catalog and sha256), and what it costs on the machine
(registers, LDS, scratch, spills, occupancy, waves per workgroup).

index.json and index.csv hold no build times, so that the same inputs give
the same bytes (a second build, another checkout, a Bazel action); times are
measurements and go to the table on stdout and to timings.json (timings_json).
A problem's kernels on one arch are of distinct families (a split
convolution, then its reduce), so (problem, arch, family) names a kernel
(kernel_key); rows that break this are refused (DuplicateKernel).
Entries that could not be built are listed under "errors" in index.json,
each with the problem's index, the arch (null when the entry itself is bad)
and the one-line message.
"""

import csv
import io
import json

from catalog.kernel import FIGURES

FORMAT = "rocke-catalog-index 1"

# Column -> what it holds. The order is the order of every output.
COLUMNS = {
    "problem": "the entry's index in the problems file",
    "name": 'the problem\'s short name (its "name", or one made from its fields)',
    "op": "conv_fwd, conv_dgrad, conv_wgrad or gemm",
    "arch": "the target arch",
    "flavor": "the LLVM flavor that compiled it",
    "family": "the kernel family chosen",
    "config": "the family's config for this problem and arch",
    "kernel": "the kernel's symbol in the code object",
    "path": "the code object, relative to the catalog; rows of one kernel (the same IR but for its name: same family, spec and arch) name the same one",
    "sha256": "the code object's sha256",
    "spec": "the family's spec of the kernel (its to_json()), which rocke verify reads back",
    "verify": "null, or (rocke build --verify) what it computed in the emulator: catalog/verify.py",
    **{figure: "resource figure (null where the flavor reports none)" for figure in FIGURES},
}


def row(problem, name, op, arch, flavor, family, config, kernel, path, built, spec):
    """The row of one built kernel (catalog.kernel.Built), its family's spec
    as JSON (`spec`) and no verification yet."""
    values = dict(
        problem=problem,
        name=name,
        op=op,
        arch=arch,
        flavor=flavor,
        family=family,
        config=config,
        kernel=kernel,
        path=path,
        sha256=built.sha256,
        spec=spec,
        verify=None,
    )
    values.update(built.figures)
    return {column: values[column] for column in COLUMNS}


def error(problem, arch, message):
    """The record of an entry that could not be built, for index.json's
    "errors": its index, the arch (None when the entry itself is bad) and the
    one-line message."""
    return {"problem": problem, "arch": arch, "message": message}


class DuplicateKernel(ValueError):
    """Two rows of one problem and arch share a family (kernel_key)."""


def _order(rows):
    """The rows by (problem, arch), a problem's kernels in the order they run;
    DuplicateKernel if two share a kernel_key."""
    check_keys(rows)
    return sorted(rows, key=lambda r: (r["problem"], r["arch"]))


def index_json(rows, errors, verify=None):
    """index.json's bytes: rows by (problem, arch), errors by (problem, arch),
    sorted keys; with `verify` (catalog.verify.settings, when the rows were
    verified) its seed and workgroups under "verify"."""
    errors = sorted(errors, key=lambda e: (e["problem"], e["arch"] or ""))
    doc = {"format": FORMAT, "columns": list(COLUMNS), "kernels": _order(rows), "errors": errors}
    if verify is not None:
        doc["verify"] = verify
    return (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode()


def index_csv(rows):
    """index.csv's bytes: a header of COLUMNS, one line per row; empty cells
    for null, JSON text (sorted keys, no spaces) for an object."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for r in _order(rows):
        writer.writerow(_csv_cell(r[c]) for c in COLUMNS)
    return out.getvalue().encode()


def _csv_cell(value):
    if value is None:
        return ""
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return value


def kernel_key(row):
    """A kernel's key among a build's times: (problem, arch, family), unique
    because a problem's kernels on an arch must be of distinct families (a
    split convolution, then its reduce); check_keys enforces it."""
    return row["problem"], row["arch"], row["family"]


def check_keys(rows):
    """DuplicateKernel, naming the problem, arch and family, if two rows share
    a kernel_key: timings.json and the table would give both one time."""
    seen = set()
    for r in rows:
        key = kernel_key(r)
        if key in seen:
            raise DuplicateKernel(
                f"expected the kernels of a problem on an arch to be of distinct families, got two {r['family']} "
                f"kernels for problems[{r['problem']}] ({r['name']}) on {r['arch']}; a catalog keys each kernel by "
                "PROBLEM/ARCH/FAMILY (timings.json): have the planner choose distinct families for one problem's "
                "kernels, or make kernel_key (platform/catalog/index.py) take a part that tells them apart"
            )
        seen.add(key)


def timings_json(seconds):
    """timings.json's bytes: {"<problem>/<arch>/<family>": seconds}, a key
    per kernel (kernel_key; this file alone differs between builds)."""
    return (
        json.dumps({"/".join(map(str, k)): round(s, 3) for k, s in sorted(seconds.items())}, indent=1) + "\n"
    ).encode()


# The stdout table: (header, column or function of the row, width is computed).
_TABLE = (
    ("#", "problem"),
    ("name", "name"),
    ("arch", "arch"),
    ("family", "family"),
    ("config", "config"),
    ("VGPR", "vgpr"),
    ("AGPR", "agpr"),
    ("SGPR", "sgpr"),
    ("LDS", "lds"),
    ("scratch", "scratch"),
    ("spills", lambda r: f"{r['vgpr_spill']}/{r['sgpr_spill']}"),
    ("occ", "occupancy"),
    ("waves", "waves"),
)


def verify_cell(result):
    """The table's cell of a row's "verify": ok, MISMATCH and its largest error, ERROR; "-" for none."""
    if result is None:
        return "-"
    if result["result"] == "mismatch":
        return f"MISMATCH {number(result['largest_error'])}"
    return "ok" if result["result"] == "ok" else "ERROR"


# The cost model's columns (catalog.verify's "model"): labelled as a model in the header.
MODEL_COLUMNS = ("model us", "of peak", "model bound")


def model_cells(result):
    """The row's model columns: microseconds, percent of peak and bound, "-" where there is no figure."""
    figures = (result or {}).get("model") or {}
    if "us" not in figures:
        return ["-"] * len(MODEL_COLUMNS)
    return [f"{figures['us']:.1f}", f"{100 * figures['peak']:.1f}%", figures["bound"]]


def modelled_total(rows):
    """The sum of the rows' modelled microseconds (each row a launch), and how many rows have none."""
    figures = [((r.get("verify") or {}).get("model") or {}).get("us") for r in rows]
    return sum(f for f in figures if f is not None), sum(f is None for f in figures)


def number(x):
    """A figure of a verification in a few digits: NaN, infinities and null as they are."""
    return str(x) if isinstance(x, str) or x is None else f"{x:.3g}"


def table(rows, seconds):
    """A readable table of the rows, with each kernel's own build time
    (`seconds`: kernel_key -> s; "-" where there is none). Spills are
    VGPR/SGPR; occ is waves per SIMD. A row whose code object an earlier
    row's kernel is (built once) shows `= #P`, P that row's problem, for its
    time: it cost no compile of its own. Where rows were verified, a column
    says how (verify_cell), and the cost model's three (model_cells): the
    modelled time, its fraction of the arch's peak and what bounds it."""
    verified = any(r.get("verify") is not None for r in rows)
    header = [h for h, _ in _TABLE] + ["time s"] + (["verify", *MODEL_COLUMNS] if verified else [])
    lines, first_of_path = [], {}
    for r in _order(rows):
        cells = [c(r) if callable(c) else r[c] for _, c in _TABLE]
        first = first_of_path.setdefault(r["path"], r)
        if first is not r:
            cells.append(f"= #{first['problem']}")
        else:
            cells.append(f"{seconds[kernel_key(r)]:.2f}" if kernel_key(r) in seconds else "-")
        if verified:
            cells += [verify_cell(r.get("verify")), *model_cells(r.get("verify"))]
        lines.append(["-" if v is None else str(v) for v in cells])
    widths = [max(len(x) for x in col) for col in zip(header, *lines)]
    text_columns = {0, 1, 2, 3, 4}  # left-aligned; figures right-aligned

    text_columns |= {len(_TABLE) + 1, len(_TABLE) + 4}  # the verify and bound columns

    def fmt(cells):
        return "  ".join(
            c.ljust(w) if i in text_columns else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    return "\n".join([fmt(header)] + [fmt(line) for line in lines]) + "\n"
