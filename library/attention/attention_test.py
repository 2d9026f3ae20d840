"""The attention family's cases, tiles and kernels: what issue 20 asks the
numbers to cover, the errors a user can cause, and that the check can fail."""

import dataclasses
import json

import numpy as np
import pytest

from attention import tiles
from attention.attention import FAMILY, build, numeric_check
from attention.spec import SpecError
from family.family import Case
from interp.interp import run
from ir.core import walk

CASES = {c.id: c for c in FAMILY.cases}


def test_cases_cover_the_issue():
    specs = [c.spec for c in FAMILY.cases]
    assert {c.arch for c in FAMILY.cases} == {"gfx942", "gfx950", "gfx1201"}
    assert {s.head_dim for s in specs} == {64, 128} and {s.dtype for s in specs} == {"f16", "bf16"}
    assert {(s.causal, s.mask) for s in specs} >= {
        (False, "none"),
        (True, "none"),
        (False, "padding"),
        (True, "padding"),
    }
    assert any(s.seq_q != s.seq_k for s in specs) and {s.layout for s in specs} == {"bshd", "bhsd"}
    assert any(s.seq_q % s.block_m and s.seq_k % s.block_n and s.seq_k > s.block_n for s in specs)
    assert any(1 < s.kv_heads < s.heads for s in specs) and any(s.kv_heads == 1 < s.heads for s in specs)
    assert any(s.lse for s in specs) and any(s.grid()[0] > 1 for s in specs) and any(s.batch > 1 for s in specs)


def test_kernel_name_arguments_and_workgroup():
    kernel = build(CASES["attn_f16_d128_causal_padding_lse_gfx942"])
    assert kernel.name == "attention_fwd_attn_f16_d128_causal_padding_lse_gfx942"
    assert [a.name for a in kernel.args] == ["q", "k", "v", "o", "mask", "lse", "seq_q", "seq_k"]
    assert kernel.attrs["workgroup_size"] == [256, 1, 1]  # 4 waves of 64 at d128 on CDNA
    assert build(CASES["attn_f16_d64_gfx942"]).attrs["workgroup_size"] == [512, 1, 1]  # 8 waves of 64
    assert [a.name for a in build(CASES["attn_f16_d64_gfx1201"]).args] == ["q", "k", "v", "o", "seq_q", "seq_k"]
    assert build(CASES["attn_f16_d64_gfx1201"]).attrs["workgroup_size"] == [256, 1, 1]  # 8 waves of 32


def test_the_unmasked_loop_carries_no_mask_work():
    """The first loop of a causal kernel (the blocks left of the diagonal band) has no select and no compare on keys."""
    kernel = build(CASES["attn_bf16_d128_causal_gqa_bhsd_lse_gfx942"])
    loops = [op for op in kernel.body.ops if op.name == "scf.for"]
    assert len(loops) == 2
    names = [op.name for op in walk(loops[0].regions[0])]
    assert "arith.select" not in names and "arith.cmp" not in names
    assert "arith.select" in [op.name for op in walk(loops[1].regions[0])]


def test_unknown_tile_and_an_op_the_arch_lacks():
    with pytest.raises(
        tiles.TileError,
        match=r"expected an arch and head dim with a tile \(gfx942 d64, .*\), got gfx90a d64; add a row",
    ):
        tiles.spec_for("gfx90a", 1, 1, 1, 16, 16, 64, "f16")
    spec = dataclasses.replace(CASES["attn_f16_d64_gfx942"].spec, mma="16x16x32")
    with pytest.raises(
        SpecError, match=r"AttentionSpec.mma: expected a matrix op gfx1201 has for f16 inputs \(.*\), got '16x16x32'"
    ):
        build(Case("x", "gfx1201", spec))


def test_a_second_row_for_an_arch_and_head_dim_fails_naming_it(tmp_path):
    row = {"arch": "gfx942", "head_dim": 64, "mma": "16x16x16", "block_m": 128, "block_n": 64, "waves": 4}
    path = tmp_path / "tiles.json"
    path.write_text(json.dumps({"tiles": [row, row]}))
    with pytest.raises(ValueError, match="expected one row per arch and head dim, got a second gfx942 d64"):
        tiles._load(str(path))
    path.write_text(json.dumps({"tiles": [{**row, "waves": 0}]}))
    with pytest.raises(ValueError, match=r"tiles\[0\]\.waves: expected a positive int, got 0$"):
        tiles._load(str(path))


def _run(kernel_case, problem_case):
    p = numeric_check(problem_case, np.random.default_rng(1))
    run(build(kernel_case), p.grid, p.args)
    return p


@pytest.mark.parametrize(
    "change",
    [
        {"scale": "0.1"},  # another scale
        {"causal": False},  # no mask where the problem has one
        {"layout": "bshd"},  # the other layout
    ],
)
def test_the_numeric_check_sees_a_wrong_kernel(change):
    case = CASES["attn_bf16_d128_causal_gqa_bhsd_lse_gfx942"]
    wrong = Case("wrong", case.arch, dataclasses.replace(case.spec, **change))
    p = _run(wrong, case)
    assert p.expected[3].misses(p.decode(p.args[3])).any()
    p = _run(case, case)
    p.check(case.id)


def test_the_padding_mask_and_lse_are_checked():
    case = CASES["attn_f16_d128_causal_padding_lse_gfx942"]
    p = numeric_check(case, np.random.default_rng(1))
    assert np.isneginf(p.args[4]).any() and (p.args[4] == 0).any()  # some keys padded, some kept
    assert np.isnan(p.decode(p.args[3])).all() and np.isnan(p.args[5]).all()  # outputs start as NaN
    lse = p.expected[5]
    assert lse.misses(lse.values + 1e-3).any()  # the lse's bound is tighter than a thousandth
