"""fields: the shared refusal and checks refuse what each promises to
refuse, naming the field, and JsonSpec round-trips a spec."""

import dataclasses

import pytest

from errors.errors import FieldError
from family import fields


class ToyError(FieldError):
    """A toy spec's refusal."""


_fail = fields.refusal(ToyError, "Toy")


@dataclasses.dataclass(frozen=True)
class Toy(fields.JsonSpec):
    error = ToyError
    rows: int
    dtype: str = "f16"
    mask: bool = False

    def __post_init__(self):
        fields.check_positive_ints(self, ("rows",), _fail)
        fields.check_choices(self, (("dtype", ("f16", "f32")),), _fail)
        fields.check_flags(self, ("mask",), _fail)


@pytest.mark.parametrize(
    "text,ok",
    [
        ("1", True),
        ("0.5", True),
        ("1e-5", True),
        ("1E+3", True),
        ("3.3e38", True),
        ("1e-45", True),  # the smallest subnormal f32 keeps it positive
        ("0", False),
        ("0.0", False),
        ("1e-50", False),  # rounds to an f32 zero
        ("1e39", False),
        ("3.4e38", False),
        (" 1", False),
        ("-1", False),
        ("+1", False),
        (".5", False),
        ("1.", False),
        ("inf", False),
        ("nan", False),
        ("", False),
        (1, False),
        (None, False),
    ],
)
def test_positive_decimal(text, ok):
    assert fields.positive_decimal(text) is ok


@pytest.mark.parametrize(
    "kwargs,field,allowed",
    [
        (dict(rows=0), "Toy.rows", None),
        (dict(rows=True), "Toy.rows", None),
        (dict(rows=2.0), "Toy.rows", None),
        (dict(rows=2**31), "Toy.rows", 2**31 - 1),
        (dict(rows=1, dtype="f64"), "Toy.dtype", ["f16", "f32"]),
        (dict(rows=1, mask=1), "Toy.mask", None),
    ],
)
def test_checks_refuse_naming_the_field(kwargs, field, allowed):
    with pytest.raises(ToyError) as e:
        Toy(**kwargs)
    assert e.value.facts()[1:] == [field, list(kwargs.values())[-1], allowed]
    assert str(e.value).startswith(field + ": expected ")


def test_refusal_words_the_field_value_and_fix():
    with pytest.raises(ToyError) as e:
        _fail("rows", 96, "a multiple of 64", 64, "use 128")
    assert str(e.value) == "Toy.rows: expected a multiple of 64, got 96; use 128"
    assert e.value.facts() == ["ToyError", "Toy.rows", 96, 64]
    with pytest.raises(ToyError, match=r"^Toy.dtype: expected one of f16, got 'f8'$"):
        _fail("dtype", "f8", "one of f16")


def test_ints_become_plain_ints():
    class Index:
        def __index__(self):
            return 7

    assert type(Toy(rows=Index()).rows) is int


def test_json_round_trip_and_refusal():
    toy = Toy(rows=2**31 - 1, dtype="f32", mask=True)
    assert toy.to_json() == {"rows": 2**31 - 1, "dtype": "f32", "mask": True}
    assert Toy.from_json(toy.to_json()) == toy
    assert Toy.from_json({"rows": 3}) == Toy(rows=3)
    with pytest.raises(ToyError, match=r"Toy.window: expected one of the fields rows, dtype, mask"):
        Toy.from_json({"rows": 3, "window": 2})
