"""A flat spec's field checks, one home for what every family's spec asks of
its JSON-valued fields (its C++ twin: cpp/fields.h). `fail` is the spec's
refusal (refusal(SpecError, "NormSpec")): it raises the spec's SpecError
for SPEC.field.

    _fail = fields.refusal(SpecError, "NormSpec")

    @dataclasses.dataclass(frozen=True)
    class NormSpec(fields.JsonSpec):
        error = SpecError
        rows: int
        eps: str
        def __post_init__(self):
            fields.check_positive_ints(self, ("rows",), _fail)
            if not fields.positive_decimal(self.eps):
                _fail("eps", self.eps, "a positive decimal string such as '1e-5'")
"""

import dataclasses
import re
import struct

from family import cases_json

# Sizes are i32 in the kernels, and so is every offset.
MAX_INT = 2**31 - 1
# A decimal number as a spec spells a real: digits, an optional fraction and exponent.
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
# Below this an f32 rounding stays finite (the largest f32 is 3.4028e38).
_F32_FINITE = 3.4e38


def refusal(error, spec):
    """The refusal function of the spec class named `spec`:
    fail(field, value, allowed, choices=None, fix="") raises `error` (an
    errors.FieldError) for SPEC.field, "SPEC.field: expected ALLOWED, got
    VALUE" and "; FIX" if a fix is given; `choices` is `allowed` as data
    where it is a list or a limit."""

    def fail(field, value, allowed, choices=None, fix=""):
        tail = f"; {fix}" if fix else ""
        raise error(f"{spec}.{field}: expected {allowed}, got {value!r}{tail}", f"{spec}.{field}", value, choices)

    return fail


def f32(x):
    """x rounded to the nearest f32, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def positive_decimal(text):
    """Whether `text` is a string spelling a decimal that stays positive and finite rounded to f32."""
    if not isinstance(text, str) or not _DECIMAL.fullmatch(text):
        return False
    value = float(text)
    return value < _F32_FINITE and f32(value) > 0


def check_positive_ints(spec, names, fail, why="an i32 in the kernel"):
    """Each field of `names` made a plain int (cases_json.plain_int) and
    refused unless it is from 1 to MAX_INT; `why` says why MAX_INT."""
    for name in names:
        value = cases_json.plain_int(getattr(spec, name))
        object.__setattr__(spec, name, value)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            fail(name, value, "a positive int")
        if value > MAX_INT:
            fail(name, value, f"a positive int at most {MAX_INT} (2**31 - 1: {why})", MAX_INT)


def check_choices(spec, choices, fail):
    """Each (field, allowed names) of `choices`: refused unless the field is one of them."""
    for name, allowed in choices:
        if getattr(spec, name) not in allowed:
            fail(name, getattr(spec, name), f"one of {', '.join(allowed)}", allowed)


def check_flags(spec, names, fail):
    """Each field of `names`: refused unless True or False."""
    for name in names:
        if not isinstance(getattr(spec, name), bool):
            fail(name, getattr(spec, name), "True or False")


class JsonSpec:
    """to_json and from_json of a frozen dataclass spec whose every field is a
    JSON value; the subclass names its error class as `error`."""

    def to_json(self):
        """Every field as a JSON value, in declaration order."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, obj):
        """The spec of a JSON object as to_json writes it (unset optional fields take their defaults)."""
        return cls(**cases_json.spec_fields(cls, obj, cls.error))
