"""A family's code objects for one flavor, as the NAME_objects_F action
(build_objects.py) writes them and the validity and machine gates read them:
canonical JSON

    {"flavor": F, "cases": {id: {"arch", "kernel", "code_object": base64,
                                 "figures": {...}}
                           or {"arch", "kernel", "error": "Class: LLVM's words"}}}

build() builds every emitted case with Toolchain.build (parse and verify,
compile, refuse an indirect call, link with --no-undefined, read the
resource figures); an LLVM refusal becomes the case's "error", for the
validity gate to report by case (faults()).
"""

import base64
import json

from family.budget import overruns
from toolchains.llvm.llvm import LlvmError


def build(irs, entries, tc):
    """{id: record} (the module doc's shape, code objects as bytes) of every emitted case, in id order."""
    cases = {}
    for case_id in sorted(irs):
        entry = entries[case_id]
        record = {"arch": entry.arch, "kernel": entry.kernel}
        try:
            built = tc.build(irs[case_id], entry.arch, entry.kernel)
        except LlvmError as e:
            record["error"] = f"{type(e).__name__}: {e}"
        else:
            record["code_object"] = built.code_object
            record["figures"] = built.figures
        cases[case_id] = record
    return cases


def render(flavor, cases):
    """The file's bytes for build()'s `cases` (code objects as base64)."""
    encoded = {
        i: {k: base64.b64encode(v).decode("ascii") if k == "code_object" else v for k, v in r.items()}
        for i, r in cases.items()
    }
    return (json.dumps({"flavor": flavor, "cases": encoded}, indent=1, sort_keys=True) + "\n").encode()


def read(path):
    """(flavor, {id: record}) of a file render() wrote, code objects as bytes."""
    with open(path) as f:
        data = json.load(f)
    for record in data["cases"].values():
        if "code_object" in record:
            record["code_object"] = base64.b64decode(record["code_object"])
    return data["flavor"], data["cases"]


def figures(record):
    """The resource figures the validity gate records of a built case (all but "waves")."""
    return {k: v for k, v in record["figures"].items() if k != "waves"}


def faults(case_id, record, flavor):
    """Why the validity gate fails a case: LLVM's refusal in its words, else
    the spills and register overruns of its arch (budget.py); [] if none."""
    where = f"{case_id} on {record['arch']} with {flavor}"
    if "error" in record:
        return [f"{where}: {record['error']}"]
    if record["code_object"][:4] != b"\x7fELF":
        return [f"{where}: the linked code object is not an ELF file"]
    return [f"{where}: {fault}" for fault in overruns(figures(record), record["arch"])]
