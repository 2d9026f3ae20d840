"""Where the matrix cores put C and D: one JSON data file (mma_layouts.json),
read here by Python and by the C++ mirror (platform/tile/cpp), keyed by the
layout ids of mma_forms.json.

Element v of lane l's C (and D) fragment sits at

    row = run * (l // n) + v % run + stride * (v // run),   col = l % n

so lanes l and l + n hold the same column, and a lane's elements come in
runs of `run` consecutive rows, `stride` rows apart. Every layout AMD's
Matrix Instruction Calculator covers is checked against its tables
(interp/layouts_test, tile/fragments_test); interp/layouts.py takes its C
from here, and platform/tile places its accumulators by it.

    C_PLACEMENTS["mfma_32x32x8"].at(lane=33, v=5)   # (13, 1)
"""

import dataclasses
import json
import os

from arch.mma_forms import FORMS
from arch.schema import Schema

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mma_layouts.json")


class MmaLayoutsError(ValueError):
    """mma_layouts.json breaks its schema."""


_S = Schema(MmaLayoutsError, "platform/arch/mma_layouts.py")


@dataclasses.dataclass(frozen=True)
class CPlacement:
    n: int  # the columns: lane l holds column l % n
    run: int  # consecutive rows of one column per run of a lane's elements
    stride: int  # rows from one run of a lane to its next

    def row(self, b, lane, v):
        """Row of element `v` of `lane`, with builder-shaped `b` (add, mul, udiv):
        run * (lane // n) + the constant v % run + stride * (v // run). A
        multiply by a run of 1 is not made."""
        group = b.udiv(lane, self.n)
        return b.add(group if self.run == 1 else b.mul(group, self.run), v % self.run + self.stride * (v // self.run))

    def at(self, lane, v):
        """(row, col) of element `v` of `lane`, as ints."""
        return self.row(_Ints, lane, v), lane % self.n


class _Ints:
    add = staticmethod(lambda a, b: a + b)
    mul = staticmethod(lambda a, b: a * b)
    udiv = staticmethod(lambda a, b: a // b)


def load(path=PATH):
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    _S.check(isinstance(raw, dict), "mma_layouts.json", "an object of layout id -> C placement", raw)
    out = {}
    for layout in sorted(raw):
        where = f"mma_layouts.json: {layout}"
        _S.name(layout, where)
        _S.keys(raw[layout], ["n", "run", "stride"], where)
        for field in ("n", "run", "stride"):
            _S.positive(raw[layout][field], f"{where}.{field}")
        out[layout] = CPlacement(raw[layout]["n"], raw[layout]["run"], raw[layout]["stride"])
    used = sorted({form.layout for form in FORMS.values()})
    _S.check(
        sorted(out) == used, "mma_layouts.json", f"exactly the layout ids mma_forms.json uses, {used}", sorted(out)
    )
    return out


C_PLACEMENTS = load()
