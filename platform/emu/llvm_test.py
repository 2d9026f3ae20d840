"""Real code objects, built by each flavor's LLVM, run in the emulator:
the platform's proof GEMM (platform/tile/gemm_example.py) against numpy on
every emulated arch, and hand-written LLVM IR (testdata/) that reads what the
hardware and the runtime set up (workitem and workgroup ids, the dispatch
packet, hidden arguments) and uses scratch."""

import os

import numpy as np
import pytest

from emu import emu
from lower.llvm import lower
from tile.gemm_example import gemm_kernel
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()
HERE = os.path.dirname(os.path.abspath(__file__))


def _ir(name):
    with open(os.path.join(HERE, "testdata", name)) as f:
        return f.read()


def _program(ir, arch, name):
    built = TC.build(ir, arch, name)
    return emu.program(built.code_object, name, TC)


@pytest.mark.parametrize("arch", emu.EMULATED)
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_proof_gemm_matches_numpy(arch, dtype):
    kernel, grid = gemm_kernel(arch, dtype)
    m, n, k = 70, 45, 40  # edge blocks in m and n, a k tail
    rng = np.random.default_rng(3)
    a32, b32 = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    if dtype == "f16":
        a, b = a32.astype(np.float16), b32.astype(np.float16)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
    else:  # bf16 by truncation: exact values the kernel reads
        a, b = (a32.view(np.uint32) >> 16).astype(np.uint16), (b32.view(np.uint32) >> 16).astype(np.uint16)
        a64 = (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        b64 = (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    c = np.full((m, n), 0xFFFF, np.uint16) if dtype == "bf16" else np.full((m, n), np.nan, np.float16)
    program = _program(lower(kernel, TC.flavor), arch, kernel.name)
    emu.launch(program, grid=grid(m, n), block=kernel.attrs["workgroup_size"], args=[a, b, c, m, n, k])
    got = c.astype(np.float64) if dtype == "f16" else (c.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    rtol = 2.0**-10 if dtype == "f16" else 2.0**-7
    np.testing.assert_allclose(got, a64 @ b64, rtol=rtol, atol=1e-2)


@pytest.mark.parametrize("arch", emu.EMULATED)
def test_initial_state_as_hardware_and_runtime_set_it(arch):
    program = _program(_ir("ids.ll"), arch, "ids")
    grid, block = (2, 3, 2), (8, 4, 2)
    out = np.zeros(10 * 12 * 64, np.uint32)
    emu.launch(program, grid=grid, block=block, args=[out, 3])
    rows = out.reshape(2, 3, 2, 2, 4, 8, 10)  # gz, gy, gx, tz, ty, tx, word
    gz, gy, gx, tz, ty, tx = np.meshgrid(*(np.arange(s) for s in rows.shape[:6]), indexing="ij")
    np.testing.assert_array_equal(rows[..., 0], 3 * tx)
    np.testing.assert_array_equal(rows[..., 1], ty)
    np.testing.assert_array_equal(rows[..., 2], tz)
    np.testing.assert_array_equal(rows[..., 3], gx)
    np.testing.assert_array_equal(rows[..., 4], gy)
    np.testing.assert_array_equal(rows[..., 5], gz)
    assert (rows[..., 6] == 8).all()  # the dispatch packet's workgroup_size_x
    assert (rows[..., 7] == 16).all()  # its grid_size_x, in workitems
    assert (rows[..., 8] == 3).all()  # hidden_block_count_y
    assert (rows[..., 9] == 2).all()  # hidden_group_size_z


@pytest.mark.parametrize("arch", emu.EMULATED)
def test_scratch(arch):
    program = _program(_ir("scratch.ll"), arch, "scratch")
    lanes = 64
    out = np.zeros(lanes, np.uint32)
    emu.launch(program, grid=(1,), block=(lanes,), args=[out])
    t = np.arange(lanes)
    np.testing.assert_array_equal(out, (t & 15) * t)


def test_an_arch_not_emulated_is_refused_by_name():
    built = TC.build(_ir("scratch.ll"), "gfx90a", "scratch")
    with pytest.raises(
        emu.ArchNotEmulated, match=r"^arch gfx90a is not emulated: the emulator runs gfx942, gfx950, gfx1201$"
    ):
        emu.program(built.code_object, "scratch", TC)
