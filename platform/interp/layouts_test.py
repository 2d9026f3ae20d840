"""The interpreter's lane layouts (layouts.py) against AMD's own tables.

The tables (testdata/amd_layouts_*.json) are the output of AMD's Matrix
Instruction Calculator; this checks every lane and every element of A, B,
C and D for every op and arch they cover. A layout that is wrong but
consistent with platform/tile (the GEMM numeric test cannot see it) fails here.
Every matrix-core form has its layout, and each layout spreads each matrix
evenly over its form's lanes and elements.
"""

import collections

import pytest

from arch.mma_forms import FORMS
from interp import amd_tables
from interp.layouts import BY_ID, LAYOUTS, NOT_IN_AMD_TABLES
from ir import mma as M

TABLES = amd_tables.load()
PARTS = {"A": "a", "B": "b", "C": "c", "D": "c"}
OPERAND = {"A": 0, "B": 1, "C": 2, "D": 2}  # index into ir.mma.fragment_types


def test_every_layout_has_an_amd_table_unless_listed_as_lacking_one():
    covered = {(t.op, t.generation) for t in TABLES}
    assert covered - set(LAYOUTS) == set(), "AMD tables for ops with no layout"
    assert set(LAYOUTS) - covered == NOT_IN_AMD_TABLES


@pytest.mark.parametrize("matrix", sorted(PARTS))
@pytest.mark.parametrize("table", TABLES, ids=str)
def test_layout_matches_amd_table_in_every_lane_and_element(table, matrix):
    where = getattr(LAYOUTS[(table.op, table.generation)], PARTS[matrix])
    lanes = table.matrices[matrix]
    assert len(lanes) == table.wave
    n = M.fragment_types(table.op, table.generation)[OPERAND[matrix]].n
    wrong = [
        f"lane {l} element {v}: layouts.py {tuple(where(l, v))}, AMD {lanes[l][v]}"
        for l in range(table.wave)
        for v in range(len(lanes[l]))
        if tuple(where(l, v)) != lanes[l][v]
    ]
    assert all(len(lane) == n for lane in lanes), (
        f"{table} {matrix}: AMD has {len(lanes[0])} elements per lane, the IR fragment {n}"
    )
    assert not wrong, f"{table} {matrix}: {len(wrong)} of {table.wave * n} elements differ: " + "; ".join(wrong[:4])


def test_every_form_has_its_layout_and_every_layout_a_form():
    assert set(BY_ID) == {form.layout for form in FORMS.values()}
    assert set(LAYOUTS) == set(FORMS)


@pytest.mark.parametrize("key", sorted(FORMS), ids="/".join)
def test_layout_spreads_each_matrix_evenly_over_the_forms_lanes_and_elements(key):
    """The data's wave and per-lane counts with the layout's formulas hold
    every element of A, B and C the same number of times (once, or twice
    where gfx11 lanes 16-31 repeat 0-15), and nothing outside the matrix."""
    form, layout = FORMS[key], LAYOUTS[key]
    s = form.shape
    for part, count, rows, cols in zip("abc", form.fragment, (s.m, s.k, s.m), (s.k, s.n, s.n)):
        held = collections.Counter(tuple(getattr(layout, part)(l, v)) for l in range(form.wave) for v in range(count))
        copies = form.wave * count // (rows * cols)
        assert held == {(i, j): copies for i in range(rows) for j in range(cols)}, (
            f"{key} {part}: {form.wave} lanes x {count} elements"
        )
