"""The K-major swizzled LDS layout: a bijection that keeps 16-byte units whole."""

import itertools

import pytest

from tile.lds import UNIT, KMajor


class Ints:
    """The builder calls KMajor.offset makes, on Python ints."""

    add = staticmethod(lambda a, b: a + b)
    mul = staticmethod(lambda a, b: a * b)
    div = staticmethod(lambda a, b: a // b)
    rem = staticmethod(lambda a, b: a % b)
    xor = staticmethod(lambda a, b: a ^ b)
    shl = staticmethod(lambda a, b: a << b)


@pytest.mark.parametrize("rows,k,elem_bytes,line", [(128, 32, 2, 128), (128, 32, 2, 256), (64, 16, 2, 128), (32, 64, 2, 128), (128, 32, 1, 256)])
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
