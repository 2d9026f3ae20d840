"""The tile GEMM on fp8 (f8e4m3) inputs, gfx950's only fp8 matrix op, with
every pair of operand layouts: run by the interpreter on odd shapes (edge
blocks in M, N and K) with f32 output, against numpy. (gemm_example's output
is in its input type, which cannot hold fp8 sums exactly.)"""

import numpy as np
import pytest

from interp.interp import run
from interp.numerics import fp8_decode, fp8_encode
from ir import types as T
from ir.builder import KernelBuilder
from tile.gemm import GemmConfig, Operands, epilogue, mainloop
from tile.tile import Tile

M, N, K = 37, 45, 70
LAYOUTS = [("row", "row"), ("col", "row"), ("row", "col"), ("col", "col")]


def build(cfg, a_layout, b_layout):
    b = KernelBuilder("g", arch="gfx950", workgroup_size=(cfg.threads(64), 1, 1))
    a, bm, c = (b.arg(x, T.GLOBAL) for x in "abc")
    m, n, k = b.arg("m", T.I32), b.arg("n", T.I32), b.arg("k", T.I32)
    row0, col0 = b.mul(b.block_id(1), cfg.tile.block_m), b.mul(b.block_id(0), cfg.tile.block_n)
    lda, ldb = {"row": k, "col": m}[a_layout], {"row": n, "col": k}[b_layout]
    acc = mainloop(
        b, cfg, Operands(a, bm, m, n, k, lda, ldb, a_layout=a_layout, b_layout=b_layout), T.F8E4M3, row0, col0
    )
    epilogue(b, acc.runs(b), c, n, m, n, row0, col0, T.F32, inside=acc.inside)
    return b.finish()


def stored(x, layout):
    """x as the kernel reads it: its transpose's rows when column-major."""
    return np.ascontiguousarray(x.T if layout == "col" else x)


@pytest.mark.parametrize("block", [32, 64])  # 32: inside and edge blocks, a k tail; 64: every block inside, no tail
@pytest.mark.parametrize("a_layout,b_layout", LAYOUTS)
def test_fp8_gemm_matches_numpy(a_layout, b_layout, block):
    cfg = GemmConfig("mma_16x16x32_fp8_f32", Tile("16x16x32", block, block, 32, 2, 2))
    rng = np.random.default_rng(8)
    m, n, k = (M, N, K) if block == 32 else (128, 64, 96)
    a = fp8_encode(rng.standard_normal((m, k)), "f8e4m3")
    bm = fp8_encode(rng.standard_normal((k, n)), "f8e4m3")
    c = np.full((m, n), np.nan, np.float32)
    run(
        build(cfg, a_layout, b_layout),
        (-(-n // block), -(-m // block), 1),
        [stored(a, a_layout), stored(bm, b_layout), c, m, n, k],
    )
    want = fp8_decode(a, "f8e4m3").astype(np.float64) @ fp8_decode(bm, "f8e4m3").astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)
    assert np.abs(want).max() > 1  # the data is not all zeros
