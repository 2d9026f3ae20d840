"""tile.gather: a GEMM whose A (or B) is gathered through an address callback, with
masked elements, run by the interpreter against numpy; and GatherCopy's
errors. The A of the GEMM is a permutation of the stored rows (or the
stored matrix transposed), with every element that the mask drops reading
zero: what an implicit-GEMM convolution's padding needs."""

import numpy as np
import pytest

from arch import arch as archs
from family import bound
from interp.interp import run
from interp.numerics import round_bf16
from ir import types as T
from ir.builder import KernelBuilder
from tile.gather import Gather, GatherCopy
from tile.gemm import Operands, epilogue, mainloop
from tile.gemm_example import TILES_128
from tile.lds import KMajor

# (m, n, k): one block wholly inside (the fast loop, with a k tail) beside edge blocks; a small edge-only one.
SHAPES = [(200, 130, 72), (37, 45, 29)]
STRIDE = 7  # stored row of A's row r: r * 7 mod m (m is not a multiple of 7: a permutation)


def as_device(x, dtype):
    """numpy data as the kernel's input type (bf16 as its bits), and those values as float64."""
    if dtype == "f16":
        h = x.astype(np.float16)
        return h, h.astype(np.float64)
    r = round_bf16(x.astype(np.float32))
    return (r.view(np.uint32) >> 16).astype(np.uint16), r.astype(np.float64)


def from_device(c, dtype):
    return c.astype(np.float64) if dtype == "f16" else (c.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _kernel(arch, dtype, m, n, k, runs):
    cfg = TILES_128[arch](dtype)
    elem = {"f16": T.F16, "bf16": T.BF16}[dtype]
    b = KernelBuilder(f"gather_{arch}", arch=arch, workgroup_size=(cfg.threads(archs.get(arch).wave_sizes[0]), 1, 1))
    a, bm, c = b.arg("a", T.GLOBAL), b.arg("b", T.GLOBAL), b.arg("c", T.GLOBAL)

    def address(b, row, kk):
        valid = b.cmp("ne", b.rem(row, 3), 0)  # every third row of A is "padding"
        if runs:  # A's rows permuted: a 16-byte run of k stays one run
            return b.add(b.mul(b.rem(b.mul(row, STRIDE), m), k), kk), valid
        return b.add(b.mul(kk, m), row), b.and_(
            valid, b.cmp("ne", b.rem(kk, 5), 0)
        )  # A stored transposed; k = 5j masked too

    ops = Operands(a, bm, b.const(m, T.I32), b.const(n, T.I32), b.const(k, T.I32), 0, n, a_gather=Gather(address, runs))
    row0, col0 = b.mul(b.block_id(1), cfg.tile.block_m), b.mul(b.block_id(0), cfg.tile.block_n)
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    epilogue(b, acc.runs(b), c, n, ops.m, ops.n, row0, col0, elem, inside=acc.inside)
    return b.finish(), (-(-n // cfg.tile.block_n), -(-m // cfg.tile.block_m), 1)


@pytest.mark.parametrize("runs", [True, False])
@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("arch,dtype", [("gfx942", "f16"), ("gfx950", "bf16"), ("gfx1201", "bf16"), ("gfx1250", "f16")])
def test_gathered_gemm_matches_numpy(arch, dtype, m, n, k, runs):
    rng = np.random.default_rng(m + n + k)
    a, a64 = as_device(rng.standard_normal((m, k)), dtype)
    bm, b64 = as_device(rng.standard_normal((k, n)) / np.sqrt(k), dtype)
    rows = np.arange(m)
    if runs:
        gathered = a64[rows * STRIDE % m]
    else:
        gathered = a64.copy()
        gathered[:, np.arange(k) % 5 == 0] = 0
    gathered[rows % 3 == 0] = 0
    stored = a if runs else np.ascontiguousarray(a.T)
    c = (
        np.full((m, n), np.nan, np.float16) if dtype == "f16" else np.full((m, n), 0x7FC0, np.uint16)
    )  # NaN: unwritten outputs fail
    kernel, grid = _kernel(arch, dtype, m, n, k, runs)
    run(kernel, grid, [stored, bm, c])
    bound.expected(np.matmul, (gathered, b64), k, dtype).check(from_device(c, dtype), f"{m}x{n}x{k} {dtype}")


def _b_kernel(arch, dtype, m, n, k, runs):
    """A row-major; B gathered: stored as B transposed ([n, k], runs: each
    column's k consecutive) or k-major with every seventh k masked (per element)."""
    cfg = TILES_128[arch](dtype)
    elem = {"f16": T.F16, "bf16": T.BF16}[dtype]
    b = KernelBuilder(f"gather_b_{arch}", arch=arch, workgroup_size=(cfg.threads(archs.get(arch).wave_sizes[0]), 1, 1))
    a, bm, c = b.arg("a", T.GLOBAL), b.arg("b", T.GLOBAL), b.arg("c", T.GLOBAL)

    def address(b, col, kk):
        if runs:
            return b.add(b.mul(col, k), kk), None
        return b.add(b.mul(kk, n), col), b.cmp("ne", b.rem(kk, 7), 0)

    ops = Operands(a, bm, b.const(m, T.I32), b.const(n, T.I32), b.const(k, T.I32), k, 0, b_gather=Gather(address, runs))
    row0, col0 = b.mul(b.block_id(1), cfg.tile.block_m), b.mul(b.block_id(0), cfg.tile.block_n)
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    epilogue(b, acc.runs(b), c, n, ops.m, ops.n, row0, col0, elem, inside=acc.inside)
    return b.finish(), (-(-n // cfg.tile.block_n), -(-m // cfg.tile.block_m), 1)


@pytest.mark.parametrize("runs", [True, False])
@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("arch,dtype", [("gfx942", "bf16"), ("gfx1201", "f16")])
def test_gathered_b_matches_numpy(arch, dtype, m, n, k, runs):
    rng = np.random.default_rng(m * n + k)
    a, a64 = as_device(rng.standard_normal((m, k)), dtype)
    bm, b64 = as_device(rng.standard_normal((k, n)) / np.sqrt(k), dtype)
    gathered = b64.copy()
    if not runs:
        gathered[np.arange(k) % 7 == 0] = 0
    stored = np.ascontiguousarray(bm.T) if runs else bm
    c = np.full((m, n), np.nan, np.float16) if dtype == "f16" else np.full((m, n), 0x7FC0, np.uint16)
    kernel, grid = _b_kernel(arch, dtype, m, n, k, runs)
    run(kernel, grid, [a, stored, c])
    bound.expected(np.matmul, (a64, gathered), k, dtype).check(from_device(c, dtype), f"{m}x{n}x{k} {dtype}")


def test_gather_copy_errors():
    lay = KMajor(64, 32, 2, 128)
    with pytest.raises(ValueError, match=r"GatherCopy: expected a tile.gather.Gather, got None"):
        GatherCopy(None, 0, "k", lay, T.F16, 256)
    with pytest.raises(
        ValueError, match=r"GatherCopy: expected contiguous 'k' \(the tile is gathered by k runs\), got 'rows'"
    ):
        GatherCopy(None, 0, "rows", lay, T.F16, 256, gather=Gather(lambda b, r, k: (r, None), True))
    with pytest.raises(
        ValueError, match=r"GatherCopy: expected contiguous 'rows' \(the tile is gathered by rows runs\), got 'k'"
    ):
        GatherCopy(None, 0, "k", lay, T.F16, 256, gather=Gather(lambda b, r, k: (r, None), True, "rows"))


# B gathers: (contiguous, runs). Element by element along k or along rows; 16-byte runs of rows.
B_GATHERS = [("k", False), ("rows", False), ("rows", True)]


def _b_valid(b, col, runs):
    """Column col of B is padding every third column, or every third 8-column run (runs share their validity)."""
    return b.cmp("ne", b.rem(b.div(col, 8) if runs else col, 3), 0)


def _b_gathered_kernel(arch, dtype, m, n, k, contiguous, runs):
    """C = A @ B with A column-major (ld = m) and B gathered: B[kk, col] is
    stored at row kk * STRIDE mod k of a k x n matrix, masked per _b_valid
    (a weight gradient's padding, in the input it gathers)."""
    cfg = TILES_128[arch](dtype)
    elem = {"f16": T.F16, "bf16": T.BF16}[dtype]
    b = KernelBuilder(f"gather_b_{arch}", arch=arch, workgroup_size=(cfg.threads(archs.get(arch).wave_sizes[0]), 1, 1))
    a, bm, c = b.arg("a", T.GLOBAL), b.arg("b", T.GLOBAL), b.arg("c", T.GLOBAL)

    def address(b, col, kk):
        return b.add(b.mul(b.rem(b.mul(kk, STRIDE), k), n), col), _b_valid(b, col, runs)

    ops = Operands(
        a,
        bm,
        b.const(m, T.I32),
        b.const(n, T.I32),
        b.const(k, T.I32),
        m,
        0,
        a_layout="col",
        b_gather=Gather(address, runs, contiguous),
    )
    row0, col0 = b.mul(b.block_id(1), cfg.tile.block_m), b.mul(b.block_id(0), cfg.tile.block_n)
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    epilogue(b, acc.runs(b), c, n, ops.m, ops.n, row0, col0, elem, inside=acc.inside)
    return b.finish(), (-(-n // cfg.tile.block_n), -(-m // cfg.tile.block_m), 1)


@pytest.mark.parametrize("contiguous,runs", B_GATHERS)
@pytest.mark.parametrize("m,n,k", [(136, 144, 72), (37, 45, 29)])  # a block wholly inside (fast loop, k tail), edges
@pytest.mark.parametrize("arch,dtype", [("gfx942", "bf16"), ("gfx1201", "f16")])
def test_gathered_b_with_column_major_a_matches_numpy(arch, dtype, m, n, k, contiguous, runs):
    rng = np.random.default_rng(m * n + k)
    a, a64 = as_device(rng.standard_normal((m, k)), dtype)
    bm, b64 = as_device(rng.standard_normal((k, n)) / np.sqrt(k), dtype)
    gathered = b64[np.arange(k) * STRIDE % k]
    gathered[:, (np.arange(n) // 8 if runs else np.arange(n)) % 3 == 0] = 0
    c = np.full((m, n), np.nan, np.float16) if dtype == "f16" else np.full((m, n), 0x7FC0, np.uint16)
    kernel, grid = _b_gathered_kernel(arch, dtype, m, n, k, contiguous, runs)
    run(kernel, grid, [np.ascontiguousarray(a.T), bm, c])
    bound.expected(np.matmul, (a64, gathered), k, dtype).check(from_device(c, dtype), f"{m}x{n}x{k} {dtype}")
