"""The pool family's cases and kernels: what issue 22 asks the cases to cover, the kernel's
shape (16-byte vectors, a tail lane, no read of padding), and that the numeric check can fail."""

import dataclasses

import numpy as np
import pytest

from family.family import Case
from interp.interp import run
from ir import types as T
from ir.core import walk
from pool.pool import FAMILY, build, numeric_check
from pool.spec import PoolSpec

CASES = {c.id: c for c in FAMILY.cases}


def _loads(kernel):
    return [op.results[0].type for op in walk(kernel.body) if op.name == "mem.load"]


def test_cases_cover_the_issue():
    specs = [c.spec for c in FAMILY.cases]
    assert {s.kind for s in specs} == {"max", "avg"} and {s.dims for s in specs} == {2, 3}
    assert {s.layout for s in specs} == {"NHWC", "NCHW"} and {s.dtype for s in specs} == {"f16", "bf16", "f32"}
    assert PoolSpec(1, 64, (112, 112), "max", (3, 3), (2, 2), (1, 1)) in specs  # ResNet-50's max pool
    assert PoolSpec(2, 64, (12, 12), "max", (3, 3), (2, 2), (1, 1)) in specs  # the same, small
    assert PoolSpec(1, 2048, (7, 7), "avg", (7, 7)) in specs  # ResNet-50's global average pool
    assert any(k > s for spec in specs for k, s in zip(spec.window, spec.stride))
    assert any(p != q for s in specs for p, q in zip(s.pad, s.pad_end))  # padding on one side only
    assert any(s.channels_last and s.c % s.vec and s.c > s.vec for s in specs)  # full lanes and a tail
    assert any(s.channels_last and s.c < s.vec for s in specs)  # a tail alone
    assert {s.count_pad for s in specs if s.kind == "avg"} == {True, False}


def test_nhwc_loads_16_bytes_and_a_scalar_tail():
    kernel = build(CASES["avg_5x5s2p2_bf16_c20_gfx942"])
    assert set(_loads(kernel)) == {T.vector(T.BF16, 8), T.BF16}
    assert kernel.name == "pool_avg_5x5s2p2_bf16_c20_gfx942" and [a.name for a in kernel.args] == ["x", "y"]
    assert set(_loads(build(CASES["avg_2x2s2_padend_count_f32_c12_gfx942"]))) == {T.vector(T.F32, 4)}
    assert set(_loads(build(CASES["max_3x3s2p1_nchw_f32_gfx942"]))) == {T.F32}


def test_max_ignores_padding_and_the_check_can_fail():
    """With every input negative, a max that read the padding as 0 would be off at the border: the
    reference does not, and a reference that did would fail the kernel's output."""
    case = CASES["max_3x3s2p1_f16_c64_gfx942"]
    check = numeric_check(case, np.random.default_rng(0))
    run(build(case), grid=check.grid, args=check.args)
    check.check(case.id)
    got = check.decode(check.args[1])
    assert (got < 0).all()
    # 12x12, window 3, stride 2, pad 1: the windows of output row 0 and column 0 cover low-side padding (none
    # reaches the high side), where a max over zero padding is 0.
    zero_padded = check.expected[1].values.copy()
    zero_padded[:, 0, :, :] = zero_padded[:, :, 0, :] = 0
    wrong = dataclasses.replace(check.expected[1], values=zero_padded)
    misses, outputs = 2 * (6 + 6 - 1) * 64, 2 * 6 * 6 * 64  # 2 images x 11 border positions x 64 channels
    with pytest.raises(AssertionError, match=f"{misses} of {outputs} elements outside the bound"):
        wrong.check(got, case.id)


def test_average_divisor_counts_padding_only_when_asked():
    spec = PoolSpec(1, 4, (3, 3), "avg", (2, 2), pad_end=(1, 1), dtype="f32")
    x = np.ones(spec.input_shape(), np.float32)
    for count_pad, corner in ((False, 1.0), (True, 0.25)):
        case = Case("t_gfx942", "gfx942", dataclasses.replace(spec, count_pad=count_pad))
        y = np.full(spec.output_shape(), np.nan, np.float32)
        run(build(case), grid=case.spec.grid(), args=[x, y])
        assert y[0, 0, 0].tolist() == [1.0] * 4 and y[0, 1, 1].tolist() == [corner] * 4


def _ops(kernel, name):
    return [op for op in walk(kernel.body) if op.name == name]


def test_the_last_window_dimension_is_unrolled_up_to_unroll():
    """ResNet-50's max pool: one loop (the rows), its 3 loads unrolled, clamped with no select (a clamped
    position repeats one of the window); a global pool's 12-long rows stay a loop."""
    kernel = build(CASES["max_3x3s2p1_f16_c64_112_gfx942"])
    (loop,) = _ops(kernel, "scf.for")
    assert len([op for op in walk(loop.regions[0]) if op.name == "mem.load"]) == 3
    assert _ops(kernel, "arith.select") == []
    # An average selects 0 at the clamped positions: 2 of the 5 on each side of the padded row, one vector
    # select each in the full lanes' branch and one per channel (4) in the tail's.
    assert len(_ops(build(CASES["avg_5x5s2p2_bf16_c20_gfx942"]), "arith.select")) == (2 + 2) * (1 + 4)
    assert len(_ops(build(CASES["avg_global_nchw_f16_gfx942"]), "scf.for")) == 2
