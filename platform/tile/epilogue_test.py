"""The FMA fallback and the epilogue's bias, activation, atomic and wide-store paths,
run by the interpreter against numpy."""

import math

import numpy as np
import pytest

from interp.interp import run
from ir import types as T
from ir.builder import KernelBuilder
from tile.copy import TileCopy
from tile.gemm import FmaConfig, GemmConfig, Operands, epilogue, fma_mainloop, mainloop
from tile.lds import KMajor
from tile.tile import Tile

M, N, K = 51, 71, 13  # 2 x 3 blocks of 32 x 32: one whole, the rest at an edge


def build(arch, use_mma, activation="none", atomic=False, wide=False, rows=False, ldc=N, residual_at=None, scale=1.0):
    """wide: the accumulators' runs and the whole-block check (vector stores where the block is inside).
    rows: give epilogue the block's rows (branch-free buffer stores at the edge). ldc: C's leading dimension.
    residual_at: a residual argument (after bias) added there."""
    cfg = GemmConfig("mma_16x16x16_f16_f32", Tile("16x16x16", 32, 32, 16, 2, 2)) if use_mma else FmaConfig(8, 8)
    block = cfg.tile if use_mma else cfg
    wave = 64 if arch.startswith("gfx9") else 32
    b = KernelBuilder("g", arch=arch, workgroup_size=(cfg.threads(wave) if use_mma else cfg.threads(), 1, 1))
    a, bm, c, bias = (b.arg(n, T.GLOBAL) for n in ("a", "b", "c", "bias"))
    residual = None if residual_at is None else b.arg("residual", T.GLOBAL)
    m, n, k = b.arg("m", T.I32), b.arg("n", T.I32), b.arg("k", T.I32)
    row0, col0 = b.mul(b.block_id(1), block.block_m), b.mul(b.block_id(0), block.block_n)
    ops = Operands(a, bm, m, n, k, lda=k, ldb=n)
    inside = None
    if use_mma:
        acc = mainloop(b, cfg, ops, T.F16, row0, col0)
        elements, inside = (acc.runs(b), acc.inside) if wide else (acc.elements(b), None)
    else:
        elements = fma_mainloop(b, cfg, ops, T.F16, row0, col0)
    epilogue(
        b,
        elements,
        c,
        ldc,
        m,
        n,
        row0,
        col0,
        T.F32,
        bias=bias,
        activation=activation,
        residual=residual,
        residual_at=residual_at or "before_activation",
        scale=scale,
        atomic=atomic,
        inside=inside,
        rows=block.block_m if rows else None,
    )
    grid = (-(-N // block.block_n), -(-M // block.block_m), 1)
    return b.finish(), grid


def data():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    bias = rng.standard_normal(N).astype(np.float32)
    return a, b, bias, a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "gfx1100", "gfx1201"])  # the archs of the 16x16x16 op
def test_wide_stores_with_bias_and_relu(arch):
    kernel, grid = build(arch, use_mma=True, activation="relu", wide=True)
    a, b, bias, ref = data()
    c = np.full((M, N), -7, np.float32)
    run(kernel, grid, [a, b, c, bias, M, N, K])
    np.testing.assert_allclose(c, np.maximum(ref + bias, 0), rtol=1e-4, atol=1e-4)
    assert (c == 0).any() and (c > 0).any()


@pytest.mark.parametrize("wide", [False, True])
def test_atomic_epilogue_accumulates_split_k_style_wide_or_not(wide):
    kernel, grid = build("gfx942", use_mma=True, atomic=True, wide=wide)
    a, b, bias, ref = data()
    c = np.zeros((M, N), np.float32)
    for _ in range(2):  # two "splits" adding into the same output
        run(kernel, grid, [a, b, c, bias, M, N, K])
    np.testing.assert_allclose(c, 2 * (ref + bias), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("arch", ["gfx1100", "gfx942"])
def test_fma_fallback_with_bias_and_relu(arch):
    kernel, grid = build(arch, use_mma=False, activation="relu")
    a, b, bias, ref = data()
    c = np.full((M, N), -7, np.float32)
    run(kernel, grid, [a, b, c, bias, M, N, K])
    np.testing.assert_allclose(c, np.maximum(ref + bias, 0), rtol=1e-5, atol=1e-5)
    assert (c == 0).any() and (c > 0).any()  # relu clipped some, kept others


# Each activation in float64, from its definition (not the kernel's formulas).
ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "gelu_tanh": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    "gelu_erf": lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2))),
}


@pytest.mark.parametrize(
    "activation, residual_at, scale, use_mma, wide, rows",
    [
        ("relu6", "before_activation", 1.0, True, True, True),
        ("gelu_tanh", "after_activation", 0.25, True, True, True),
        ("gelu_erf", "before_activation", 3.0, True, False, False),
        ("gelu_erf", "after_activation", 1.0, False, False, True),
    ],
)
def test_activations_residual_and_scale(activation, residual_at, scale, use_mma, wide, rows):
    """Every path (whole, buffered, checked) with each new activation, a residual on either side and a scale;
    inputs scaled by 3 so that relu6 clips above 6 and GELU sees both tails."""
    kernel, grid = build(
        "gfx942", use_mma, activation=activation, wide=wide, rows=rows, residual_at=residual_at, scale=scale
    )
    a, b, bias, ref = data()
    a = (3 * a).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    res = np.random.default_rng(5).standard_normal((M, N)).astype(np.float32)
    c = np.full((M, N), SENTINEL, np.float32)
    run(kernel, grid, [a, b, c, bias, res, M, N, K])
    x = ref + bias + (res if residual_at == "before_activation" else 0)
    want = ACTIVATIONS[activation](x) + (res if residual_at == "after_activation" else 0)
    np.testing.assert_allclose(c, scale * want, rtol=1e-4, atol=1e-4)
    if activation == "relu6":
        assert (c == 6).any() and (c == 0).any()  # both clamps taken


SENTINEL = -7.0


@pytest.mark.parametrize("use_mma, wide", [(True, True), (True, False), (False, False)])
def test_edge_buffer_stores_leave_the_margin_past_m_and_n_untouched(use_mma, wide):
    """C is (M + 5) x (N + 9) with ldc N + 9, sentinel-filled; the kernel is
    told m = M, n = N. The grid has one more block row than m needs: a
    block wholly past m (its rows clamp to 0), and blocks straddling n, m or
    both. Inside m x n: bias and relu applied; the margin keeps the sentinel
    (a dropped column mask writes the padding columns; a wrapped row count
    writes the rows past m)."""
    ldc = N + 9
    kernel, grid = build("gfx942", use_mma, activation="relu", wide=wide, rows=True, ldc=ldc)
    grid = (grid[0], grid[1] + 1, 1)
    a, b, bias, ref = data()
    c = np.full((M + 5, ldc), SENTINEL, np.float32)
    run(kernel, grid, [a, b, c, bias, M, N, K])
    np.testing.assert_allclose(c[:M, :N], np.maximum(ref + bias, 0), rtol=1e-4, atol=1e-4)
    assert (c[:M, N:] == SENTINEL).all(), "columns past n were written"
    assert (c[M:] == SENTINEL).all(), "rows past m were written"
    assert (c[:M, :N] == 0).any() and (c[:M, :N] > 0).any()  # relu clipped some, kept others


def test_bad_operand_layout_and_copy_shapes():
    with pytest.raises(ValueError, match="Operands: expected a_layout in \\('row', 'col'\\), got 'diag'"):
        Operands(None, None, 1, 1, 1, 1, 1, a_layout="diag")
    with pytest.raises(
        ValueError,
        match="TileCopy: expected the tile's 48 moves to divide or be a multiple of the 256 threads, got 48 x 8",
    ):
        TileCopy(None, 1, "k", KMajor(48, 8, 2, 128), T.F16, 256)
    with pytest.raises(
        ValueError,
        match="TileCopy: a rows-contiguous tile needs rows a multiple of 8 and k a multiple of 2, got 12 x 8",
    ):
        TileCopy(None, 1, "rows", KMajor(12, 8, 2, 128), T.F16, 256)
    with pytest.raises(ValueError, match=r"TileCopy: expected k_run/run among 2/0, 2/4, 4/0 .* got 4/0 for 'k'"):
        TileCopy(None, 1, "k", KMajor(64, 32, 2, 128), T.F16, 256, k_run=4)


def test_bad_epilogue_arguments():
    b = KernelBuilder("g", arch="gfx942", workgroup_size=(64, 1, 1))
    with pytest.raises(
        ValueError, match="expected activation one of none, relu, relu6, gelu_tanh, gelu_erf, got 'gelu'"
    ):
        epilogue(b, [], None, 1, 1, 1, 0, 0, T.F32, activation="gelu")
    with pytest.raises(ValueError, match="expected residual_at one of before_activation, after_activation, got 'x'"):
        epilogue(b, [], None, 1, 1, 1, 0, 0, T.F32, residual_at="x")
    with pytest.raises(ValueError, match="expected f32 output for atomic accumulation, got f16"):
        epilogue(b, [], None, 1, 1, 1, 0, 0, T.F16, atomic=True)
