"""The proof GEMM, run by the interpreter on odd shapes, against numpy: the
128x128x32 tiles with edge blocks, column-major operands, gfx950's direct
loop and its register loop; and that the check can fail (a wrong layout, a
missing barrier before the direct loads are read, a wrong inverse map)."""

import dataclasses

import numpy as np
import pytest

from family import bound
from interp.interp import InterpError, run
from interp.numerics import round_bf16
from ir.builder import KernelBuilder
from tile import gemm
from tile.gemm_example import TILES_128, gemm_kernel
from tile.lds import UNIT, KMajor, RowXor

ARCHS = ["gfx942", "gfx950", "gfx1100", "gfx1201", "gfx1250"]
SHAPES = [(37, 45, 29), (1, 70, 3), (64, 32, 48)]


def as_device(x, dtype):
    """numpy data as the kernel's input type, and those values as float64."""
    if dtype == "f16":
        h = x.astype(np.float16)
        return h, h.astype(np.float64)
    r = round_bf16(x.astype(np.float32))
    return (r.view(np.uint32) >> 16).astype(np.uint16), r.astype(np.float64)


def from_device(c, dtype):
    if dtype == "f16":
        return c.astype(np.float64)
    return (c.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def check(kernel, grid, dtype, m, n, k, a_layout="row", b_layout="row"):
    rng = np.random.default_rng(m * 10000 + n * 100 + k)
    a, a64 = as_device(rng.standard_normal((m, k)), dtype)
    b, b64 = as_device(rng.standard_normal((k, n)), dtype)
    stored_a = a if a_layout == "row" else np.ascontiguousarray(a.T)
    stored_b = b if b_layout == "row" else np.ascontiguousarray(b.T)
    c = np.zeros((m, n), a.dtype)
    run(kernel, grid(m, n), [stored_a, stored_b, c, m, n, k])
    # Accumulated in f32, rounded once to the input type: within bound.py's bound.
    bound.expected(np.matmul, (a64, b64), k, dtype).check(from_device(c, dtype), f"{m}x{n}x{k} {dtype}")


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_matches_numpy(arch, dtype, m, n, k):
    check(*gemm_kernel(arch, dtype), dtype, m, n, k)


# 2 x 3 blocks of 128 x 128: one whole block (its k steps through the fast
# loop, then a last partial k step), edge blocks in M, in N and in both.
@pytest.mark.parametrize("arch", sorted(TILES_128))
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("m,n,k", [(200, 300, 100), (128, 256, 64)])
def test_128x128x32_tiles_match_numpy_edges_included(arch, dtype, m, n, k):
    check(*gemm_kernel(arch, dtype, TILES_128[arch](dtype)), dtype, m, n, k)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "gfx1201"])
@pytest.mark.parametrize("a_layout,b_layout", [("col", "row"), ("row", "col"), ("col", "col")])
def test_column_major_operands(arch, a_layout, b_layout):
    kernel, grid = gemm_kernel(arch, "f16", TILES_128[arch]("f16"), a_layout, b_layout)
    check(kernel, grid, "f16", 150, 140, 72, a_layout, b_layout)


def test_a_wrong_layout_would_be_caught():
    # The check above can fail: corrupting one input element moves the result.
    kernel, grid = gemm_kernel("gfx942", "f16")
    a = np.ones((16, 16), np.float16)
    b = np.eye(16, dtype=np.float16)
    c = np.zeros((16, 16), np.float16)
    a[3, 5] = 7
    run(kernel, grid(16, 16), [a, b, c, 16, 16, 16])
    assert c[3, 5] == 7 and c[5, 3] == 1


# gfx950's fast loop loads straight to LDS (gemm._direct): two buffers, one
# barrier an iteration, each lane fetching the unit its LDS slot holds.
DIRECT = ("gfx950", "f16", 256, 256, 96)  # 2 x 2 whole blocks, 3 k steps: both buffers, twice


def _direct_kernel(direct_lds=True):
    arch, dtype, *_ = DIRECT
    return gemm_kernel(arch, dtype, dataclasses.replace(TILES_128[arch](dtype), direct_lds=direct_lds))


def _ops(kernel):
    return {op.name for op in _walk(kernel.body)}


def _walk(block):
    for op in block.ops:
        yield op
        for region in op.regions:
            yield from _walk(region)


@pytest.mark.parametrize("direct_lds", [True, False])
def test_the_direct_loop_and_the_register_one_match_numpy(direct_lds):
    kernel, grid = _direct_kernel(direct_lds)
    assert ("buffer.load_to_lds" in _ops(kernel)) == direct_lds
    check(kernel, grid, *DIRECT[1:])


def test_without_barriers_the_direct_loads_are_read_before_they_land(monkeypatch):
    # The interpreter lands a direct load at the next barrier and refuses any
    # access before it: the loop's barrier is what makes the numbers right.
    monkeypatch.setattr(KernelBuilder, "barrier", lambda self: None)
    kernel, grid = _direct_kernel()
    with pytest.raises(
        InterpError, match="mem.load: expected no access to LDS bytes a direct-to-LDS load has yet to write"
    ):
        check(kernel, grid, *DIRECT[1:])


def _unswizzled(self, b, slot):
    """unit_at as if the layout had no swizzle: not the inverse of offset."""
    units_row = self.k * self.elem_bytes // UNIT
    return b.div(slot, units_row), b.mul(b.rem(slot, units_row), self.unit_elems)


@pytest.mark.parametrize("layout", [KMajor, RowXor])
def test_a_wrong_inverse_map_gives_wrong_numbers(monkeypatch, layout):
    # A lane that fetches another unit than its LDS slot holds (here: A's,
    # or B's, swizzle left out) puts it where the fragment reads look for
    # another: the check against numpy fails.
    monkeypatch.setattr(layout, "unit_at", _unswizzled)
    kernel, grid = _direct_kernel()
    with pytest.raises(AssertionError, match=r"elements outside the bound"):
        check(kernel, grid, *DIRECT[1:])


def test_the_direct_loop_is_gfx950s_only():
    for arch in sorted(TILES_128):
        kernel, _ = gemm_kernel(arch, "f16", TILES_128[arch]("f16"))
        assert ("buffer.load_to_lds" in _ops(kernel)) == (arch in gemm.LDS_OPS["buffer.load_to_lds"].archs), arch
