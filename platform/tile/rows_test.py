"""tile.rows: a workgroup's sum and max over every lane of every wave, run in the interpreter against numpy,
on both wave sizes and with one and several waves."""

import numpy as np
import pytest

from interp.interp import run
from ir import types as T
from ir.builder import KernelBuilder
from tile import rows


@pytest.mark.parametrize(
    "arch,wave,waves", [("gfx942", 64, 1), ("gfx942", 64, 4), ("gfx1201", 32, 1), ("gfx1201", 32, 3)]
)
def test_every_lane_gets_the_workgroups_sum_and_max(arch, wave, waves):
    threads = wave * waves
    b = KernelBuilder("rows", arch=arch, workgroup_size=(threads, 1, 1), wave_size=wave)
    src, total, top = (b.arg(n, T.GLOBAL) for n in ("src", "total", "top"))
    at = b.mul(b.thread_id(0), 4)
    x = b.load(b.offset(src, at), T.F32)
    slots = b.lds_alloc(rows.slots_bytes(waves)) if waves > 1 else None
    b.store(b.offset(total, at), rows.workgroup(b, x, b.add, slots, waves))
    b.store(b.offset(top, at), rows.workgroup(b, x, b.max, slots, waves))  # the slots reused
    kernel = b.finish()
    data = np.random.default_rng(3).integers(-1000, 1000, threads).astype(np.float32)  # sums exact in f32
    out = [np.full(threads, np.nan, np.float32), np.full(threads, np.nan, np.float32)]
    run(kernel, (1, 1, 1), [data, *out])
    np.testing.assert_array_equal(out[0], np.full(threads, data.astype(np.float64).sum()))
    np.testing.assert_array_equal(out[1], np.full(threads, data.max()))


def test_one_wave_needs_no_lds_and_no_barrier():
    assert rows.slots_bytes(1) == 0 and rows.slots_bytes(16) == 64
    b = KernelBuilder("rows", arch="gfx942", workgroup_size=(64, 1, 1), wave_size=64)
    x = b.load(b.arg("src", T.GLOBAL), T.F32)
    rows.workgroup(b, x, b.add, None, 1)
    names = [op.name for op in b.kernel.body.ops]
    assert names.count("lane.bpermute") == 6 and "gpu.barrier" not in names
