"""machine.check on a toy family's real code objects: a grid of more than
SAMPLE_LIMIT workgroups launches its corner and edge blocks and compares what
they wrote, saying so; wrong numbers fail naming the case and the flavor,
with the reference interpreter's verdict; sample() picks the first, middle
and last position of each axis and every position of the axes run whole."""

import numpy as np
import pytest

from family import machine
from family.bound import Expected
from family.family import Case, Family, NumericCheck
from ir import types as T
from ir.builder import KernelBuilder
from lower.llvm import lower
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()
LANES = 64


def build(case):
    b = KernelBuilder("toy_" + case.id, arch=case.arch, workgroup_size=(LANES, 1, 1))
    out = b.arg("out", T.GLOBAL)
    index = b.add(b.mul(b.block_id(0), LANES), b.thread_id(0))
    b.store(b.offset(out, b.mul(index, 4)), b.convert(index, T.F32))
    return b.finish()


def numeric_check(case):
    blocks, shift = case.spec
    out = np.full(blocks * LANES, np.nan, np.float32)
    want = np.arange(blocks * LANES, dtype=np.float64) + shift
    return NumericCheck([out], (blocks, 1, 1), {0: Expected(want, np.abs(want), 1, "f32")}, lambda v: v)


FAMILY = Family(
    "toy",
    (Case("wide_gfx942", "gfx942", (100, 0)), Case("wrong_gfx942", "gfx942", (3, 1))),
    build,
    lambda case, rng: numeric_check(case),
)


def _check(case):
    kernel = build(case)
    code = TC.build(lower(kernel, TC.flavor), case.arch, kernel.name).code_object
    numeric = FAMILY.numeric(case)
    return machine.check(case.id, numeric, TC, code, kernel.name, (LANES, 1, 1), lambda: kernel).log()


def test_a_wide_grid_runs_its_corner_and_edge_blocks_and_says_so():
    log = _check(FAMILY.cases[0])
    assert any("sampled 3 of 100 workgroups (the first, middle and last of each axis)" in line for line in log), log


def test_wrong_numbers_fail_naming_the_case_with_the_interpreter_verdict():
    with pytest.raises(machine.Mismatch, match=rf"wrong_gfx942 \({TC.flavor}, machine\): argument 0") as e:
        _check(FAMILY.cases[1])
    assert "wrong_gfx942: the reference interpreter does not match numpy either" in str(e.value)


def test_sample_takes_the_first_middle_and_last_of_each_axis():
    assert machine.sample((2, 2)) is None  # 4 workgroups run whole
    assert machine.sample((100,)) == [(0, 0, 0), (50, 0, 0), (99, 0, 0)]
    assert machine.sample((2, 3)) == [(x, y, 0) for x in (0, 1) for y in (0, 1, 2)]
    assert len(machine.sample((10, 10, 3))) == 3 * 3 * 3


def test_sample_runs_every_workgroup_along_a_whole_axis():
    chosen = machine.sample((7, 1, 4), whole=(2,))  # split-K: 4 slices of each tile
    assert chosen == [(x, 0, z) for x in (0, 3, 6) for z in range(4)]
