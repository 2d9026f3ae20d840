"""mma_layouts.json's loader: the formula on ints, and a broken file refused
naming the entry (the placements themselves are checked against AMD's tables
by interp/layouts_test and tile/fragments_test)."""

import json

import pytest

from arch import mma_layouts
from arch.mma_layouts import C_PLACEMENTS, MmaLayoutsError


def test_formula_on_ints_from_amds_32x32x8_text():
    # AMD's calculator for v_mfma_f32_32x32x8f16: "C or D i: (8 * floor(GPR_num / 4) % 32) +
    # 4 * floor(lane / 32) + (GPR_num % 4)", "j: lane % 32"; lane 33, GPR 5: i = 8 + 4 + 1.
    assert C_PLACEMENTS["mfma_32x32x8"].at(33, 5) == (13, 1)


def _write(tmp_path, edit):
    with open(mma_layouts.PATH) as f:
        raw = json.load(f)
    edit(raw)
    path = tmp_path / "mma_layouts.json"
    path.write_text(json.dumps(raw))
    return str(path)


def test_a_missing_layout_id_is_refused_naming_the_ids_forms_use(tmp_path):
    path = _write(tmp_path, lambda raw: raw.pop("mfma_32x32x8"))
    with pytest.raises(
        MmaLayoutsError, match=r"expected exactly the layout ids mma_forms\.json uses, \[.*'mfma_32x32x8'"
    ):
        mma_layouts.load(path)


def test_a_zero_run_is_refused_naming_the_field(tmp_path):
    path = _write(tmp_path, lambda raw: raw["wmma_gfx11_16x16x16"].update(run=0))
    with pytest.raises(
        MmaLayoutsError, match=r"mma_layouts\.json: wmma_gfx11_16x16x16\.run: expected a positive integer, got 0"
    ):
        mma_layouts.load(path)


def test_an_unknown_field_is_refused(tmp_path):
    path = _write(tmp_path, lambda raw: raw["mfma_16x16x16"].update(cols=16))
    with pytest.raises(MmaLayoutsError, match=r"mfma_16x16x16: expected exactly the keys \['n', 'run', 'stride'\]"):
        mma_layouts.load(path)
