"""The table generator's reading of the calculator's CSV, and its file format."""

import glob
import json

import pytest

from interp import amd_tables
from interp.gen_amd_tables import CalculatorError, dump, element_index, parse_layout

# The shape of `matrix_calculator.py ... --matrix-layout --csv` (rdna4, two lanes).
CSV = """Architecture: RDNA4
Instruction: V_WMMA_F32_16X16X16_F16
lane,v0.[15:0],v0.[31:16],v1.[15:0],v1.[31:16]
0,B[0][0],B[1][0],B[2][0],B[3][0]
1,B[0][1],B[1][1],B[2][1],B[3][1]
"""


def test_columns_become_vector_elements():
    assert [element_index(c) for c in ("v0", "v7", "v0.[31:16]", "v1.[15:0]", "v1.[31:24]")] == [0, 7, 1, 2, 7]


def test_csv_becomes_lanes_of_row_col_pairs():
    assert parse_layout(CSV, "B") == [[[0, 0], [1, 0], [2, 0], [3, 0]], [[0, 1], [1, 1], [2, 1], [3, 1]]]


@pytest.mark.parametrize(
    "bad", [CSV.replace("B[2][1]", "B[2]"), CSV.replace("1,B[0][1]", "2,B[0][1]"), CSV.replace("lane,", "")]
)
def test_anything_unexpected_is_an_error(bad):
    with pytest.raises(CalculatorError):
        parse_layout(bad, "B")


def test_committed_tables_are_in_the_generators_exact_format():
    paths = sorted(glob.glob(f"{amd_tables.TESTDATA}/amd_layouts_*.json"))
    assert paths
    for path in paths:
        with open(path) as f:
            text = f.read()
        assert dump(json.loads(text)) + "\n" == text, path
