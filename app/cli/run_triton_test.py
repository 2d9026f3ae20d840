"""`rocke run` on another compiler's code object: Triton 3.9.0's tutorial GEMM
(app/bench/triton_compile.py), compiled ahead of time for each emulated arch
at 4 warps into testdata/triton/ (`./bazel run //app/bench:triton_aot --
app/cli/testdata/triton` regenerates them), its output against numpy.
Triton's kernels take two pointer arguments beyond the kernel's own (global
and profile scratch: null here) and their LDS as dynamic LDS (--lds); gfx942
preloads kernargs into SGPRs and gfx950 loads straight into LDS."""

import contextlib
import io
import json
import pathlib

import numpy as np
import pytest

from app.cli import command_line, run_cmd

TESTDATA = pathlib.Path(__file__).parent / "testdata" / "triton"
M, N, K = 208, 144, 112  # Triton compiled M, N, K and the row strides as multiples of 16


def test_every_emulated_arch_has_a_triton_code_object():
    assert sorted(p.stem for p in TESTDATA.glob("*.hsaco")) == ["gemm_gfx1201", "gemm_gfx942", "gemm_gfx950"]


@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "gfx1201"])
def test_triton_gemm_runs_and_matches_numpy(arch, tmp_path):
    facts = json.loads((TESTDATA / f"gemm_{arch}.json").read_text())
    assert facts["arch"] == arch and facts["triton"] == "3.9.0", facts
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((M, K)).astype(np.float16), rng.standard_normal((K, N)).astype(np.float16)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    grid = -(-M // 128) * -(-N // 128)
    argv = [
        "run",
        str(TESTDATA / f"gemm_{arch}.hsaco"),
        "--grid",
        str(grid),
        "--block",
        str(facts["warps"] * facts["wave"]),
        "--lds",
        str(facts["lds"]),
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
        assert command_line.main(argv, {"run": run_cmd}, {}) == 0, err.getvalue()
    c = np.load(tmp_path / "c.npy").astype(np.float64)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=2.0**-10, atol=1e-2)
    assert f"gemm ({arch}, wave{facts['wave']}): {grid} workgroups" in out.getvalue()
