"""The numeric checks as data (checks.py): what Family.numeric gives reads
back equal (arrays, ints, grid, the axes run whole, bounds, the workgroup
size), decoded by the
output's type; the bytes are the same on every run; a refused case is
recorded with its class; a family whose decode is not its output type's is
refused, naming the case."""

import numpy as np
import pytest

from family import bound, checks
from family.family import Case, Family, NumericCheck, Refusal
from ir import types as T
from ir.builder import KernelBuilder


class ToyRefusal(Refusal):
    pass


def build(case):
    if case.spec == "refused":
        raise ToyRefusal("toy refuses this one")
    b = KernelBuilder("toy_" + case.id, arch=case.arch, workgroup_size=(32, 2, 1))
    b.arg("out", T.GLOBAL)
    return b.finish()


def bf16_bits(rng):
    return rng.integers(0, 1 << 16, (3, 4)).astype(np.uint16)


def numeric_check(case, rng, decode=lambda v: bound.decode(v, "bf16")):
    x = rng.standard_normal(5).astype(np.float16)
    out = bf16_bits(rng)
    want = rng.standard_normal((3, 4))
    return NumericCheck([x, out, 7], (3, 2, 1), {1: bound.Expected(want, np.abs(want), 5, "bf16")}, decode, whole=(1,))


def toy(decode=None):
    cases = (Case("a_gfx942", "gfx942", "built"), Case("r_gfx942", "gfx942", "refused"))
    check = numeric_check if decode is None else lambda case, rng: numeric_check(case, rng, decode)
    return Family("toy", cases, build, check)


def read(tmp_path, fam):
    path = tmp_path / "toy.checks.json"
    path.write_bytes(checks.render(fam))
    return checks.read(path)


def test_a_case_reads_back_as_family_numeric_gives_it(tmp_path):
    fam = toy()
    name, entries = read(tmp_path, fam)
    assert name == "toy" and list(entries) == ["a_gfx942", "r_gfx942"]
    entry, want = entries["a_gfx942"], fam.numeric(fam.cases[0])
    assert entry.arch == "gfx942" and entry.block == (32, 2, 1) and not entry.refused
    got = entry.numeric
    assert got.grid == (3, 2, 1) and got.whole == (1,)
    assert [type(a) for a in got.args] == [np.ndarray, np.ndarray, int] and got.args[2] == 7
    for mine, theirs in zip(got.args[:2], want.args[:2]):
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape and mine.tobytes() == theirs.tobytes()
    e, w = got.expected[1], want.expected[1]
    assert (e.length, e.dtype) == (5, "bf16")
    assert np.array_equal(e.values, w.values) and np.array_equal(e.magnitudes, w.magnitudes)
    assert np.array_equal(got.decode(got.args[1]), want.decode(want.args[1]))


def test_a_refused_case_is_recorded_with_its_class(tmp_path):
    entry = read(tmp_path, toy())[1]["r_gfx942"]
    assert entry.refused == "ToyRefusal" and entry.numeric is None


def test_the_bytes_are_the_same_on_every_run():
    assert checks.render(toy()) == checks.render(toy())


def test_a_decode_that_is_not_the_output_types_is_refused_naming_the_case():
    wrong = toy(decode=lambda v: v.astype(np.float64))  # bf16 bits read as integers
    with pytest.raises(checks.ChecksError, match=r"family toy, case a_gfx942: argument 1: the family's decode differs"):
        checks.render(wrong)
