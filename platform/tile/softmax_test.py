"""tile.softmax: which matrix ops chain a product into the next, and the row
statistics, exp and repack run in the interpreter against numpy."""

import math

import numpy as np
import pytest

from errors.errors import FieldError
from interp.interp import run
from ir import types as T
from ir.builder import KernelBuilder
from tile import softmax


@pytest.mark.parametrize(
    "op,generation",
    [("mma_16x16x16_f16_f32", "gfx9"), ("mma_16x16x16_bf16_f32", "gfx9"), ("mma_16x16x16_f16_f32", "gfx12")],
)
def test_the_16x16x16_ops_chain(op, generation):
    frag = softmax.chain(op, generation)
    assert frag.placement.n == frag.rows == 16


@pytest.mark.parametrize(
    "op,generation,why",
    [
        ("mma_32x32x8_f16_f32", "gfx9", "accumulator is its own B operand's layout"),  # 16 of a lane's C elements, 4 k
        ("mma_16x16x32_f16_f32", "gfx9", "accumulator is its own B operand's layout"),  # 4 C elements, 8 k
        ("mma_16x16x16_f16_f32", "gfx11", "accumulator is its own B operand's layout"),  # gfx11 repeats lanes
        ("mma_16x16x16_f16_f32", "gfx8", "fragment layout on gfx8"),
    ],
)
def test_other_ops_are_refused_by_name(op, generation, why):
    with pytest.raises(FieldError, match=f"softmax.chain: expected an op .*{why}.*, got {op}"):
        softmax.chain(op, generation)


def test_the_log_constants_are_the_doubles_nearest_them():
    assert (softmax.LOG2E, softmax.LN2) == (math.log2(math.e), math.log(2))


@pytest.mark.parametrize("arch,generation,wave", [("gfx942", "gfx9", 64), ("gfx1201", "gfx12", 32)])
def test_row_statistics_scaled_exp_and_repack(arch, generation, wave):
    """Lane l holds x[l]: across() gives every lane the max and sum over the lanes of its C column
    (l % 16); scaled_exp and repack give exp(scale x - m) (m in log2 units) and its f16 bits."""
    frag = softmax.chain("mma_16x16x16_f16_f32", generation)
    b = KernelBuilder("rows", arch=arch, workgroup_size=(wave, 1, 1), wave_size=wave)
    src, top, total, packed = (b.arg(n, T.GLOBAL) for n in ("src", "top", "total", "packed"))
    lane = b.lane_id()
    x = b.load(b.offset(src, b.mul(lane, 4)), T.F32)
    m = softmax.across(b, frag, x, b.max)
    b.store(b.offset(top, b.mul(lane, 4)), m)
    b.store(b.offset(total, b.mul(lane, 4)), softmax.across(b, frag, x, b.add))
    e = softmax.scaled_exp(b, x, 0.5, b.mul(m, 0.5 * softmax.LOG2E))
    b.store(b.offset(packed, b.mul(lane, 4)), softmax.repack(b, [e, x], T.F16))
    kernel = b.finish()
    rng = np.random.default_rng(7)
    data = rng.standard_normal(wave).astype(np.float32)
    out = [np.zeros(wave, np.float32), np.zeros(wave, np.float32), np.zeros(2 * wave, np.float16)]
    run(kernel, (1, 1, 1), [data, *out])
    columns = data.reshape(-1, 16)  # row g: the lanes 16g .. 16g + 15; a column: one lane of each row
    np.testing.assert_array_equal(out[0], np.tile(columns.max(axis=0), wave // 16))
    np.testing.assert_allclose(out[1], np.tile(columns.sum(axis=0), wave // 16), rtol=1e-6)
    want = np.exp(0.5 * data - 0.5 * out[0])
    np.testing.assert_allclose(out[2][0::2].astype(np.float64), want, rtol=2**-10)
    np.testing.assert_array_equal(out[2][1::2], data.astype(np.float16))


@pytest.mark.parametrize("arch,wave,first,end", [("gfx942", 64, 1, 16), ("gfx942", 64, 2, 64), ("gfx1201", 32, 1, 32)])
def test_butterfly_reduces_over_the_lane_bits_from_first_to_end_and_reciprocal_is_one_over(arch, wave, first, end):
    """Lane l holds x[l]: butterfly(first, end) gives every lane the max and the sum over the lanes whose ids
    differ from l's only in the bits first .. end / 2; reciprocal gives 1 / sum, and 0 for a zero sum."""
    b = KernelBuilder("lanes", arch=arch, workgroup_size=(wave, 1, 1), wave_size=wave)
    src, top, inv = (b.arg(n, T.GLOBAL) for n in ("src", "top", "inv"))
    lane = b.lane_id()
    x = b.load(b.offset(src, b.mul(lane, 4)), T.F32)
    b.store(b.offset(top, b.mul(lane, 4)), softmax.butterfly(b, x, b.max, first, end))
    b.store(b.offset(inv, b.mul(lane, 4)), softmax.reciprocal(b, softmax.butterfly(b, x, b.add, first, end)))
    kernel = b.finish()
    data = np.random.default_rng(3).integers(0, 5, wave).astype(np.float32)  # some groups sum to 0
    data[:end] = 0
    out = [np.zeros(wave, np.float32), np.zeros(wave, np.float32)]
    run(kernel, (1, 1, 1), [data, *out])
    lanes = np.arange(wave)
    group = [(lanes & ~(end - first)) == (l & ~(end - first)) for l in lanes]  # the lanes l's bits first..end/2 reach
    np.testing.assert_array_equal(out[0], [data[g].max() for g in group])
    sums = np.array([data[g].sum() for g in group])
    np.testing.assert_allclose(out[1], np.divide(1, sums, out=np.zeros(wave), where=sums > 0), rtol=1e-6)
