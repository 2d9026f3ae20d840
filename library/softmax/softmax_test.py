"""The softmax kernels in the interpreter: where the one-pass line falls, fully masked rows, and the
numeric check failing on a wrong output."""

import numpy as np
import pytest

from family.family import Case
from interp.interp import run
from softmax import softmax
from softmax.plan import plan
from softmax.spec import SoftmaxSpec


@pytest.mark.parametrize(
    "arch,dim,one_pass",
    [
        ("gfx942", 2048, True),  # 64 lanes x 32 f16: the longest row read once on a wave64
        ("gfx942", 2056, False),
        ("gfx1201", 1024, True),  # 32 lanes x 32
        ("gfx1201", 1032, False),
    ],
)
def test_a_row_is_read_once_up_to_lane_elements_per_lane(arch, dim, one_pass):
    assert plan(SoftmaxSpec(1, dim), arch).one_pass is one_pass


@pytest.mark.parametrize(
    "dim,group,rows_per_block", [(128, 16, 16), (8, 1, 256), (100, 32, 8), (512, 64, 4), (4096, 64, 4)]
)
def test_a_short_row_takes_a_group_of_lanes(dim, group, rows_per_block):
    p = plan(SoftmaxSpec(1, dim), "gfx942")
    assert (p.group, p.rows_per_block) == (group, rows_per_block)


def _run(spec, arch, x, mask=None):
    case = Case("t", arch, spec)
    y = np.full(x.shape, np.nan, np.float32)
    args = [x, y] + ([mask] if mask is not None else []) + [spec.rows]
    run(softmax.build(case), plan(spec, arch).grid(spec.rows), args)
    return y


@pytest.mark.parametrize("dim,lane_elements", [(40, 32), (3000, 32), (200, 4)])
def test_a_fully_masked_row_is_zeros_and_the_others_sum_to_one(dim, lane_elements):
    spec = SoftmaxSpec(3, dim, "f32", mask=True, scale="0.5", lane_elements=lane_elements)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, dim)).astype(np.float32)
    mask = np.zeros((3, dim), np.float32)
    mask[1] = -np.inf
    mask[2, ::2] = -np.inf
    y = _run(spec, "gfx942", x, mask)
    np.testing.assert_array_equal(y[1], 0.0)
    np.testing.assert_array_equal(y[2, ::2], 0.0)
    np.testing.assert_allclose(y[[0, 2]].sum(axis=1), 1.0, rtol=1e-5)
    want = np.exp(0.5 * x[0] - (0.5 * x[0]).max())
    np.testing.assert_allclose(y[0], want / want.sum(), rtol=1e-5)


def test_the_numeric_check_fails_on_a_wrong_element():
    case = next(c for c in softmax.FAMILY.cases if c.id == "softmax_bf16_1000_gfx942")
    check = softmax.FAMILY.numeric(case)
    run(softmax.build(case), check.grid, check.args)
    check.check(case.id)
    check.args[1][2, 999] ^= 0x0040  # a bf16 element a few ulps off
    with pytest.raises(AssertionError, match="1 of 5000 elements outside the bound"):
        check.check(case.id)
