"""AMD's own lane tables, for tests: testdata/amd_layouts_<architecture>.json.

Written by gen_amd_tables.py from AMD's Matrix Instruction Calculator (each
file names the command and the calculator commit). A table maps lane l,
element v of an op's A, B, C or D operand to (row, col) of that matrix.
"""

import dataclasses
import glob
import json
import os

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


@dataclasses.dataclass(frozen=True)
class Table:
    architecture: str  # as the calculator names it: cdna3, rdna3, ...
    generation: str  # the rocke arch generation of the archs below
    archs: tuple  # the archs.json archs the calculator was asked about
    op: str
    instruction: str
    wave: int
    matrices: dict  # "A", "B", "C", "D" -> lanes, each a tuple of (row, col) per element

    def __str__(self):
        return f"{self.op} on {self.generation} ({self.architecture} {self.instruction})"


def load():
    """Every table, in file and op order."""
    out = []
    for path in sorted(glob.glob(os.path.join(TESTDATA, "amd_layouts_*.json"))):
        with open(path) as f:
            doc = json.load(f)
        for op, entry in sorted(doc["ops"].items()):
            matrices = {m: tuple(tuple(map(tuple, lane)) for lane in entry[m]) for m in ("A", "B", "C", "D")}
            out.append(
                Table(
                    doc["architecture"],
                    doc["generation"],
                    tuple(doc["archs"]),
                    op,
                    entry["instruction"],
                    entry["wave"],
                    matrices,
                )
            )
    return out
