"""The norm family's cases, tiles and kernels: what issue 22 asks the numbers to cover, one pass over
global memory where the row fits in registers, and that the check can fail."""

import dataclasses
import json

import numpy as np
import pytest

from family.family import Case
from interp.interp import run
from ir.core import walk
from norm import tiles
from norm.norm import FAMILY, build, numeric_check

CASES = {c.id: c for c in FAMILY.cases}


def test_cases_cover_the_issue():
    specs = [c.spec for c in FAMILY.cases]
    assert {c.arch for c in FAMILY.cases} == {"gfx942", "gfx950", "gfx1201", "gfx1250"}
    assert {s.kind for s in specs} == {"layernorm", "rmsnorm"} and {s.dtype for s in specs} == {"f16", "bf16", "f32"}
    assert {768, 1024, 4096} <= {s.dim for s in specs} and any(s.dim % 8 for s in specs)
    assert {(s.residual, s.residual_out) for s in specs} == {(False, False), (True, False), (True, True)}
    assert {s.affine for s in specs} == {True, False}
    assert {(s.kind, s.chunks > 1) for s in specs} == {(k, c) for k in ("layernorm", "rmsnorm") for c in (0, 1)}


def _loads(kernel):
    return sum(op.name == "mem.load" for op in walk(kernel.body))


def test_a_row_in_registers_is_read_once_and_a_longer_one_twice():
    """ln_bf16_d4096 on gfx942: 256 lanes, 2 vectors of x and 2 each of weight and bias a lane, and one
    LDS slot a wave read by each reduction (4 waves, 2 reductions). The chunked layernorm reads x and the
    residual twice, and the weight and bias once."""
    kernel = build(CASES["ln_bf16_d4096_gfx942"])
    assert kernel.attrs["workgroup_size"] == [256, 1, 1]
    assert _loads(kernel) == 2 + 2 + 2 + 2 * 4
    chunked = CASES["ln_f16_d1200_chunked_residual_out_gfx942"]
    assert chunked.spec.chunks == 3 and chunked.spec.per_lane // chunked.spec.vec == 1
    assert _loads(build(chunked)) == 2 * (3 * 2) + 3 * 2  # one vector a chunk; one wave: no LDS


def test_kernel_arguments():
    names = [a.name for a in build(CASES["ln_f16_d1024_residual_out_gfx1201"]).args]
    assert names == ["x", "residual", "weight", "bias", "y", "residual_out"]
    assert [a.name for a in build(CASES["rms_bf16_d768_plain_gfx942"]).args] == ["x", "y"]
    assert [a.name for a in build(CASES["rms_bf16_d771_gfx950"]).args] == ["x", "weight", "y"]


def test_the_tile_table_and_its_errors(tmp_path):
    assert tiles.tile_for("gfx942", 768) == {"threads": 64, "per_lane": 16}
    assert tiles.tile_for("gfx1201", 4096) == {"threads": 256, "per_lane": 16}
    assert tiles.tile_for("gfx950", 10**6) == {"threads": 1024, "per_lane": 32}
    with pytest.raises(tiles.TileError, match=r"expected an arch with tiles \(gfx942, .*\), got gfx90a; add its rows"):
        tiles.tile_for("gfx90a", 768)
    row = {"arch": "gfx942", "max_dim": 1024, "threads": 64, "per_lane": 16}
    path = tmp_path / "tiles.json"
    path.write_text(json.dumps({"tiles": [row, row]}))
    with pytest.raises(ValueError, match=r"tiles\[1\]: expected gfx942's rows in increasing max_dim"):
        tiles._load(str(path))
    path.write_text(json.dumps({"tiles": [row]}))
    with pytest.raises(ValueError, match="expected gfx942's last row to have max_dim null"):
        tiles._load(str(path))
    path.write_text(json.dumps({"tiles": [{**row, "max_dim": None, "threads": 0}]}))
    with pytest.raises(ValueError, match=r"tiles\[0\]\.threads: expected a positive int, got 0$"):
        tiles._load(str(path))


@pytest.mark.parametrize(
    "name,change",
    [
        ("ln_f16_d1024_residual_out_gfx942", {"eps": "0.5"}),  # another eps
        ("ln_f32_d771_plain_gfx942", {"kind": "rmsnorm"}),  # no centring
        ("rms_f32_d1024_gfx942", {"eps": "10"}),
        ("ln_bf16_d4096_gfx942", {"dim": 4088}),  # a row cut short
    ],
)
def test_the_numeric_check_sees_a_wrong_kernel(name, change):
    case = CASES[name]
    wrong = Case("wrong", case.arch, dataclasses.replace(case.spec, **change))
    p = numeric_check(case, np.random.default_rng(1))
    run(build(wrong), p.grid, p.args)
    y = len(p.args) - (2 if case.spec.residual_out else 1)
    assert p.expected[y].misses(p.decode(p.args[y])).any()


def test_the_residual_sum_is_checked_exactly():
    case = CASES["rms_f16_d4096_residual_out_gfx942"]
    p = numeric_check(case, np.random.default_rng(1))
    assert np.isnan(p.decode(p.args[3])).all() and np.isnan(p.decode(p.args[4])).all()  # outputs start as NaN
    run(build(case), p.grid, p.args)
    p.check(case.id)
    out = p.expected[4]
    ulp = np.spacing(np.abs(out.values).astype(np.float16)).astype(np.float64)
    assert out.misses(out.values + ulp).all()  # one ulp off in the input type misses
