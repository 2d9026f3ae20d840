"""Tile: a frozen value, validated on construction, each error naming its field."""

import numpy as np
import pytest

from errors.errors import FieldError
from tile.tile import FIELDS, MAX_SIZE, Tile, shapes

GOOD = dict(mma="16x16x16", block_m=128, block_n=64, block_k=32, waves_m=2, waves_n=2)


class OwnError(FieldError):
    """A spec's error class, for Tile.of."""


@pytest.mark.parametrize(
    "fields,field,message",
    [
        (dict(block_m=0), "block_m", "expected a positive int, got 0"),
        (dict(block_n=True), "block_n", "expected a positive int, got True"),
        (dict(block_k="32"), "block_k", "expected a positive int, got '32'"),
        (
            dict(waves_m=2**31),
            "waves_m",
            "expected a positive int at most 2147483647 (2**31 - 1: a tile size is an i32), got 2147483648",
        ),
        (
            dict(mma="16x16"),
            "mma",
            "expected a matrix-core shape MxNxK: one of 16x16x16, 16x16x32, 32x32x8, 32x32x16, got '16x16'",
        ),
        (dict(block_m=80), "block_m", "expected a multiple of waves_m (2) x the mma's M (16) = 32, got 80"),
        (dict(waves_n=3), "block_n", "expected a multiple of waves_n (3) x the mma's N (16) = 48, got 64"),
        (dict(block_k=8), "block_k", "expected a multiple of the mma's K (16) = 16, got 8"),
    ],
)
def test_a_bad_field_is_named_by_the_tile_or_by_its_owner(fields, field, message):
    with pytest.raises(FieldError) as err:
        Tile(**{**GOOD, **fields})
    assert type(err.value) is FieldError and str(err.value) == f"Tile.{field}: {message}"
    assert err.value.field == f"Tile.{field}"
    with pytest.raises(OwnError) as err:
        Tile.of({**GOOD, **fields, "other": 1}, "Spec.tile", OwnError)
    assert str(err.value) == f"Spec.tile.{field}: {message}" and err.value.field == f"Spec.tile.{field}"


def test_a_tile_is_a_frozen_plain_value():
    t = Tile(**{**GOOD, "block_m": np.int64(128), "waves_n": np.int8(2)})
    assert t == Tile(**GOOD) and hash(t) == hash(Tile(**GOOD)) and type(t.block_m) is int
    assert t.to_json() == GOOD and tuple(t.to_json()) == FIELDS
    assert t.mma_shape == (16, 16, 16) and t.waves == 4
    assert t.describe() == "mma 16x16x16, block 128x64x32, waves 2x2"
    assert Tile.of({**GOOD, "arch": "gfx942"}, "row", OwnError) == t
    with pytest.raises(AttributeError):
        t.block_m = 64


def test_shapes_narrow_by_input_type_and_arch():
    assert shapes() == ["16x16x16", "16x16x32", "32x32x8", "32x32x16"]
    assert shapes("fp8") == ["16x16x32"]
    assert shapes("f16", "gfx942") == ["16x16x16", "32x32x8"]
    assert MAX_SIZE == 2**31 - 1
