"""Matrix ops on operands whose products are known by hand. Each lane's
fragment is filled from its lane number alone; where an element lands in the
result follows the C/D rows of AMD's Matrix Instruction Calculator (quoted
in platform/interp/LAYOUTS.md), and A's rows and B's columns are lane % 16."""

import numpy as np

from emu import testing


def _f16_words(values, regs):
    """Each lane's `regs` registers filled with the f16 of its value."""
    h = np.repeat(np.asarray(values, np.float16)[:, None], 2 * regs, axis=1)
    return np.ascontiguousarray(h).view(np.uint32)


def test_mfma_16x16x16_f16():
    wg = testing.workgroup("gfx942", ["v_mfma_f32_16x16x16_f16 v[4:7], v[0:1], v[2:3], 0"])
    w = wg.waves[0]
    lane = np.arange(64)
    w.v[:, 0:2] = _f16_words(lane % 16, 2)  # A[i][k] = i
    w.v[:, 2:4] = _f16_words(1 + lane // 16, 2)  # B[k][j] = 1 + k // 4 (k = 4 * (lane // 16) + v)
    testing.run(wg)
    d = w.v[:, 4:8].copy().view(np.float32)
    # D[i][j] = sum_k i * (1 + k // 4) = 40 i; lane l holds rows i = 4 * (l // 16) + v.
    want = 40.0 * (4 * (lane[:, None] // 16) + np.arange(4)[None, :])
    np.testing.assert_array_equal(d, want)


def test_mfma_accumulates_c():
    wg = testing.workgroup("gfx942", ["v_mfma_f32_16x16x16_f16 v[4:7], v[0:1], v[2:3], v[4:7]"])
    w = wg.waves[0]
    w.v[:, 0:2] = _f16_words(np.ones(64), 2)
    w.v[:, 2:4] = _f16_words(np.full(64, 0.5), 2)
    w.v[:, 4:8] = np.float32(3.0).view(np.uint32)
    testing.run(wg)
    np.testing.assert_array_equal(w.v[:, 4:8].copy().view(np.float32), 16 * 0.5 + 3.0)


def test_mfma_fp8_reads_ocp_e4m3_on_gfx950():
    wg = testing.workgroup("gfx950", ["v_mfma_f32_16x16x32_fp8_fp8 v[4:7], v[0:1], v[2:3], 0"])
    w = wg.waves[0]
    w.v[:, 0:2] = 0x38383838  # e4m3 0 0111 000: 1.0
    w.v[:, 2:4] = 0x40404040  # e4m3 0 1000 000: 2.0
    testing.run(wg)
    np.testing.assert_array_equal(w.v[:, 4:8].copy().view(np.float32), 32 * 2.0)


def test_wmma_gfx12_16x16x16_f16():
    wg = testing.workgroup("gfx1201", ["v_wmma_f32_16x16x16_f16 v[8:15], v[0:3], v[4:7], 0"])
    w = wg.waves[0]
    lane = np.arange(32)
    w.v[:, 0:4] = _f16_words(lane % 16, 4)  # A[i][k] = i
    w.v[:, 4:8] = _f16_words(np.ones(32), 4)  # B = 1
    testing.run(wg)
    # D[i][j] = 16 i; lane l holds rows i = 8 * (l // 16) + v (AMD's RDNA4 table).
    want = 16.0 * (8 * (lane[:, None] // 16) + np.arange(8)[None, :])
    np.testing.assert_array_equal(w.v[:, 8:16].copy().view(np.float32), want)
