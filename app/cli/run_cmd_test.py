"""`rocke run` on our gemm tile's code object (its output against numpy) and
its one-line errors for bad input."""

import contextlib
import io
import re

import numpy as np
import pytest

from app.cli import command_line, emit_cmd, run_cmd
from gemm import gemm

# The commands and the one family it needs: an edit to another family does not re-run it.
COMMANDS = {"emit": emit_cmd, "run": run_cmd}
CASE = "gemm_f16_128x128x32"  # m = n = 128, k = 64; one workgroup of 256 lanes


def _rocke(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = command_line.main(argv, COMMANDS, command_line.registry(gemm))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("run")
    for arch in ("gfx942", "gfx1250"):
        status, _, err = _rocke(["emit", "gemm", "--case", f"{CASE}_{arch}", "--out", str(d / f"{arch}.hsaco")])
        assert status == 0, err
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((128, 64)).astype(np.float16), rng.standard_normal((64, 128)).astype(np.float16)
    np.save(d / "a.npy", a)
    np.save(d / "b.npy", b)
    return d, a, b


def _args(d, c="out:{d}/c.npy:float16:128,128"):
    return [f"in:{d}/a.npy", f"in:{d}/b.npy", c.format(d=d), "i32:128", "i32:128", "i32:64"]


def test_runs_our_gemm_tile_and_matches_numpy(files):
    d, a, b = files
    status, out, err = _rocke(["run", str(d / "gfx942.hsaco"), "--grid", "1,1", "--block", "256", *_args(d)])
    assert status == 0, err
    c = np.load(d / "c.npy")
    np.testing.assert_allclose(
        c.astype(np.float64), a.astype(np.float64) @ b.astype(np.float64), rtol=2.0**-10, atol=1e-3
    )
    assert re.search(r"^gemm_gemm_f16_128x128x32_gfx942 \(gfx942, wave64\): 1 workgroups, 4 waves, ", out, re.M)
    assert re.search(r"^  matrix +256 +64\.0 per wave$", out, re.M)  # 2 k steps x 32 MFMAs per wave
    model = re.search(
        r"^  model    ([\d.]+) us for the whole grid, ([\d.]+)% of peak, ([\w ]+)-bound \(.*\)$", out, re.M
    )
    assert model, out
    assert "a MODEL from platform/arch/perf_model.json, not a hardware time" in model.group(0)
    # One workgroup on one of gfx942's 304 CUs: most of the device idles.
    assert float(model.group(1)) > 0 and float(model.group(2)) < 5 and model.group(3) == "tail"


def test_some_workgroups_only(files):
    d, a, b = files
    status, out, err = _rocke(
        ["run", str(d / "gfx942.hsaco"), "--grid", "1,1", "--block", "256", "--workgroups", "0,0", *_args(d)]
    )
    assert status == 0 and "1 workgroups" in out, err
    assert _error(
        ["run", str(d / "gfx942.hsaco"), "--grid", "1,1", "--block", "256", "--workgroups", "1,0", *_args(d)]
    ) == ("rocke run: LaunchError: workgroup (1, 0, 0) is outside the grid (1, 1, 1)")


def _error(argv):
    status, out, err = _rocke(argv)
    assert status == 2 and not out and err.count("\n") == 1, (status, out, err)
    return err.strip()


def test_bad_input_is_one_line(files, tmp_path):
    d, _, _ = files
    k = str(d / "gfx942.hsaco")
    assert re.match(
        r"rocke run: kernel gemm_gemm_f16_128x128x32_gfx942 takes 6 arguments \(arg\.a \(global_buffer, 8 B\)",
        _error(["run", k, "--grid", "1", "--block", "256", *_args(d)[:5]]),
    )
    assert _error(["run", k, "--grid", "1", "--block", "256", *_args(d, "f32:1")]) == (
        "rocke run: argument 2 ('f32:1'): the kernel's argument arg.c is global_buffer of 8 bytes, not by_value of 4"
    )
    assert _error(["run", k, "--kernel", "nope", "--grid", "1", "--block", "256"]) == (
        "rocke run: LoadError: unknown kernel 'nope': the code object has gemm_gemm_f16_128x128x32_gfx942"
    )
    assert _error(["run", str(d / "a.npy"), "--grid", "1", "--block", "256"]).startswith(
        "rocke run: LoadError: expected an AMDGPU code object"
    )
    assert _error(["run", str(d / "gfx1250.hsaco"), "--grid", "1", "--block", "256", *_args(d)]) == (
        "rocke run: ArchNotEmulated: arch gfx1250 is not emulated: the emulator runs gfx942, gfx950, gfx1201"
    )
    fault = _error(["run", k, "--grid", "1", "--block", "256", *_args(d, "out:{d}/c.npy:float16:16,16")])
    assert re.fullmatch(
        r"rocke run: MemoryFault: global_store_\w+ at 0x[0-9a-f]+ in gemm_gemm_f16_128x128x32_gfx942: lane \d+ "
        r"accesses \d+ bytes at 0x[0-9a-f]+, outside every buffer",
        fault,
    )
