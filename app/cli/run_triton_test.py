"""`rocke run` on another compiler's code object: Triton 3.9.0's tutorial GEMM
(app/bench/triton_compile.py, compiled ahead of time for each emulated arch,
4 warps), its output against numpy. Triton's kernels take two pointer
arguments beyond the kernel's own (global and profile scratch: null here)
and their LDS as dynamic LDS (--lds); gfx942 preloads kernargs into SGPRs
and gfx950 loads straight into LDS."""

import contextlib
import io

import numpy as np
import pytest
import triton
import triton_compile
from triton.backends.compiler import GPUTarget

from app.cli import rocke

M, N, K = 208, 144, 112  # Triton compiled M, N, K and the row strides as multiples of 16


@pytest.mark.parametrize("arch, wave", [("gfx942", 64), ("gfx950", 64), ("gfx1201", 32)])
def test_triton_gemm_runs_and_matches_numpy(arch, wave, tmp_path):
    kernel = triton.compile(
        triton_compile._source(), target=GPUTarget("hip", arch, wave), options={"num_warps": 4, "num_stages": 2}
    )
    (tmp_path / "k.hsaco").write_bytes(kernel.asm["hsaco"])
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((M, K)).astype(np.float16), rng.standard_normal((K, N)).astype(np.float16)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    grid = -(-M // 128) * -(-N // 128)
    argv = [
        "run",
        str(tmp_path / "k.hsaco"),
        "--grid",
        str(grid),
        "--block",
        str(4 * wave),
        "--lds",
        str(kernel.metadata.shared),
        f"in:{tmp_path}/a.npy",
        f"in:{tmp_path}/b.npy",
        f"out:{tmp_path}/c.npy:float16:{M},{N}",
        f"i32:{M}",
        f"i32:{N}",
        f"i32:{K}",
        f"i32:{K}",
        f"i32:{N}",
        f"i32:{N}",
        "null",
        "null",
    ]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert rocke.main(argv) == 0, err.getvalue()
    c = np.load(tmp_path / "c.npy").astype(np.float64)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=2.0**-10, atol=1e-2)
    assert f"gemm ({arch}, wave{wave}): {grid} workgroups" in out.getvalue()
