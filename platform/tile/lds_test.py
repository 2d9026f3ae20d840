"""The swizzled LDS layouts (K-major, and RowXor's k-rows): bijections that
keep 16-byte units whole, and their unit_at the inverse of their offset."""

import itertools

import pytest

from tile.lds import UNIT, KMajor, RowXor


class Ints:
    """The builder calls KMajor.offset makes, on Python ints."""

    add = staticmethod(lambda a, b: a + b)
    mul = staticmethod(lambda a, b: a * b)
    udiv = staticmethod(lambda a, b: a // b)
    urem = staticmethod(lambda a, b: a % b)
    xor = staticmethod(lambda a, b: a ^ b)
    shl = staticmethod(lambda a, b: a << b)


@pytest.mark.parametrize(
    "rows,k,elem_bytes,line",
    [(128, 32, 2, 128), (128, 32, 2, 256), (64, 16, 2, 128), (32, 64, 2, 128), (128, 32, 1, 256)],
)
def test_offsets_are_a_bijection_onto_the_tile_keeping_units_whole(rows, k, elem_bytes, line):
    lay = KMajor(rows, k, elem_bytes, line)
    offsets = {(r, c): lay.offset(Ints, r, c) for r, c in itertools.product(range(rows), range(k))}
    assert sorted(offsets.values()) == list(range(0, lay.nbytes, elem_bytes))
    per = UNIT // elem_bytes
    for (r, c), at in offsets.items():  # the elements of one unit stay consecutive
        assert at - offsets[(r, c - c % per)] == (c % per) * elem_bytes


@pytest.mark.parametrize("line", [128, 256])
def test_rows_a_period_apart_differ_by_a_constant(line):
    lay = KMajor(128, 32, 2, line)
    for r, c in itertools.product(range(lay.period_rows), range(0, 32, 8)):
        assert lay.offset(Ints, r + lay.period_rows, c) - lay.offset(Ints, r, c) == lay.period_rows * 64


def test_rows_that_are_not_whole_units_are_refused():
    with pytest.raises(ValueError, match="expected rows of whole 16-byte units, got 12 elements of 2 bytes"):
        KMajor(16, 12, 2, 128)


def test_a_line_that_is_not_a_power_of_two_units_is_refused():
    with pytest.raises(ValueError, match="expected a line of a power of two 16-byte units, got 96 bytes"):
        KMajor(16, 32, 2, 96)


LAYOUTS = [
    KMajor(128, 32, 2, 256),
    KMajor(128, 32, 2, 128),
    KMajor(64, 16, 2, 128),
    KMajor(128, 32, 1, 256),
    RowXor(32, 128, 2, 256, 64),
    RowXor(16, 256, 2, 256, 64),
    RowXor(32, 64, 2, 128, 32),
]


@pytest.mark.parametrize("lay", LAYOUTS, ids=repr)
def test_unit_at_names_the_unit_each_slot_holds(lay):
    # Slot s holds the unit unit_at(s) gives: offset puts it back at s, so a
    # copy that fills slot after slot (copy.DirectCopy) places every unit where
    # the fragment reads look for it, and every unit once.
    slots = lay.nbytes // UNIT
    units = [lay.unit_at(Ints, s) for s in range(slots)]
    assert [lay.offset(Ints, r, c) for r, c in units] == [s * UNIT for s in range(slots)]
    assert len(set(units)) == slots


@pytest.mark.parametrize(
    "rows,k,elem_bytes,line,run", [(32, 128, 2, 256, 64), (8, 256, 2, 256, 64), (32, 64, 1, 64, 16)]
)
def test_rowxor_is_a_bijection_keeping_runs_whole(rows, k, elem_bytes, line, run):
    lay = RowXor(rows, k, elem_bytes, line, run)
    offsets = {(r, c): lay.offset(Ints, r, c) for r, c in itertools.product(range(rows), range(k))}
    assert sorted(offsets.values()) == list(range(0, lay.nbytes, elem_bytes))
    per = run // elem_bytes
    for (r, c), at in offsets.items():  # the elements of one run stay consecutive
        assert at - offsets[(r, c - c % per)] == (c % per) * elem_bytes


def test_rowxor_moves_the_rows_of_a_line_group_to_distinct_runs():
    # The 4 rows of a transposed read (ds_read_b64_tr_b16) put their first run
    # on 4 distinct runs of the line: distinct banks, as Padded's pad did.
    lay = RowXor(32, 128, 2, 256, 64)
    assert [lay.offset(Ints, r, 0) % 256 for r in range(4)] == [0, 64, 128, 192]


def test_rowxor_refuses_rows_that_are_not_whole_lines():
    with pytest.raises(
        ValueError,
        match="expected rows of whole 256-byte lines and a line of whole runs of whole 16-byte units, got rows of 192 bytes and runs of 64",
    ):
        RowXor(32, 96, 2, 256, 64)
