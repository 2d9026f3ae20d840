"""The tile GEMM's operand forms beyond the proof kernel's: column-major A
and B (copy_to_lds_transposed) and fp8 (f8e4m3) inputs, run by the
interpreter on odd shapes (edge tiles in M, N and K) against numpy."""

import numpy as np
import pytest

from interp.interp import run
from interp.numerics import fp8_decode, fp8_encode
from ir import types as T
from ir.builder import KernelBuilder
from tile.gemm import GemmConfig, Operands, epilogue, mainloop

M, N, K = 37, 45, 70


def build(arch, cfg, elem, a_layout, b_layout):
    wave = 64 if arch.startswith("gfx9") else 32
    b = KernelBuilder("g", arch=arch, workgroup_size=(cfg.threads(wave), 1, 1))
    a, bm, c = (b.arg(x, T.GLOBAL) for x in "abc")
    m, n, k = b.arg("m", T.I32), b.arg("n", T.I32), b.arg("k", T.I32)
    row0, col0 = b.mul(b.block_id(1), cfg.block_m), b.mul(b.block_id(0), cfg.block_n)
    lda, ldb = {"row": k, "col": m}[a_layout], {"row": n, "col": k}[b_layout]
    ops = Operands(a, bm, m, n, k, lda, ldb, a_layout=a_layout, b_layout=b_layout)
    epilogue(b, mainloop(b, cfg, ops, elem, row0, col0).elements(b), c, n, m, n, row0, col0, T.F32)
    return b.finish(), (-(-N // cfg.block_n), -(-M // cfg.block_m), 1)


def stored(x, layout):
    """x as the kernel reads it: its transpose's rows when column-major."""
    return np.ascontiguousarray(x.T if layout == "col" else x)


@pytest.mark.parametrize("arch,op", [("gfx942", "mma_16x16x16_f16_f32"), ("gfx1201", "mma_16x16x16_f16_f32")])
@pytest.mark.parametrize("a_layout,b_layout", [("col", "row"), ("row", "col"), ("col", "col")])
def test_column_major_operands(arch, op, a_layout, b_layout):
    kernel, grid = build(arch, GemmConfig(op, 32, 32, 16, 2, 2), T.F16, a_layout, b_layout)
    rng = np.random.default_rng(7)
    a = rng.standard_normal((M, K)).astype(np.float16)
    bm = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    run(kernel, grid, [stored(a, a_layout), stored(bm, b_layout), c, M, N, K])
    np.testing.assert_allclose(c, a.astype(np.float64) @ bm.astype(np.float64), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("a_layout,b_layout", [("row", "row"), ("col", "col")])
def test_fp8_inputs_on_gfx950(a_layout, b_layout):
    kernel, grid = build("gfx950", GemmConfig("mma_16x16x32_fp8_f32", 32, 32, 32, 2, 2), T.F8E4M3, a_layout, b_layout)
    rng = np.random.default_rng(8)
    a = fp8_encode(rng.standard_normal((M, K)), "f8e4m3").astype(np.uint8)
    bm = fp8_encode(rng.standard_normal((K, N)), "f8e4m3").astype(np.uint8)
    c = np.zeros((M, N), np.float32)
    run(kernel, grid, [stored(a, a_layout), stored(bm, b_layout), c, M, N, K])
    want = fp8_decode(a, "f8e4m3").astype(np.float64) @ fp8_decode(bm, "f8e4m3").astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)
    assert np.abs(want).max() > 1  # the data is not all zeros


def test_transposed_copy_needs_whole_vectors_down_a_column():
    b = KernelBuilder("g", arch="gfx942", workgroup_size=(64, 1, 1))
    cfg = GemmConfig("mma_16x16x16_f16_f32", 16, 16, 16, 1, 1, vec=32)
    ops = Operands(*(b.arg(x, T.GLOBAL) for x in "ab"), 16, 16, 16, 16, 16, a_layout="col")
    with pytest.raises(ValueError, match=r"copy_to_lds_transposed: expected tile_rows \(16\) to be a multiple of vec \(32\)"):
        mainloop(b, cfg, ops, T.F16, 0, 0)


def test_unknown_layout_is_named():
    with pytest.raises(ValueError, match=r"Operands: expected b_layout in \('row', 'col'\), got 'T'"):
        Operands(None, None, 1, 1, 1, 1, 1, b_layout="T")
