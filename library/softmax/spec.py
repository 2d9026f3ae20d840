"""The softmax problem and its tile: a frozen spec validated on construction.

y = softmax(scale * x + mask) row by row over the last dimension, with f32
statistics:

  - x and y are [rows, dim], row-major, of `dtype` (f16, bf16 or f32); y is
    written in x's type.
  - mask: an additive f32 [rows, dim] (0, any finite value or -inf), added
    after the scale.
  - scale: a decimal string ("0.125"), rounded to f32: a spec holds no floats
    (platform/ir/SPELLING.md).

The tile is part of the spec, flat beside the problem's fields: `waves` a
workgroup holds and `lane_elements`, the most row elements a lane keeps in
registers. A row whose share per lane fits lane_elements is read once and
written once (library/softmax/README.md says where the line falls); a longer
row runs an online pass (a running max and rescaled sum) and a second pass
that reads it again to write. The kernel takes `rows` at run time; the spec's
rows are the problem the numeric gate runs. `dim` is compiled in.
"""

import dataclasses
import math
import re
import struct

from errors.errors import FieldError
from family import cases_json
from ir import types as T

DTYPES = ("f16", "bf16", "f32")
DEFAULT_SCALE = "1"
DEFAULT_WAVES = 4
DEFAULT_LANE_ELEMENTS = 32
# A decimal number as the scale's spelling: digits, an optional fraction and exponent.
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
# A spec's type name -> its IR type.
ELEM = {"f16": T.F16, "bf16": T.BF16, "f32": T.F32}
# Sizes are i32 in the kernel, and so is every byte offset.
MAX_INT = 2**31 - 1
# A workgroup holds at most 1024 lanes (waves x a wave of at most 64).
MAX_WAVES = 16
_INT_FIELDS = ("rows", "dim", "waves", "lane_elements")


class SpecError(FieldError):
    """A softmax spec field is invalid: names the field, the value and what is allowed."""


def _fail(field, value, allowed, choices=None):
    """SpecError for SoftmaxSpec.`field`; `choices` is `allowed` as data where it is a list or a limit."""
    raise SpecError(f"SoftmaxSpec.{field}: expected {allowed}, got {value!r}", f"SoftmaxSpec.{field}", value, choices)


def f32(x):
    """x rounded to the nearest f32, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


@dataclasses.dataclass(frozen=True)
class SoftmaxSpec:
    rows: int
    dim: int
    dtype: str = "f16"
    mask: bool = False
    scale: str = DEFAULT_SCALE
    waves: int = DEFAULT_WAVES
    lane_elements: int = DEFAULT_LANE_ELEMENTS

    def __post_init__(self):
        for field in _INT_FIELDS:
            value = cases_json.plain_int(getattr(self, field))
            object.__setattr__(self, field, value)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                _fail(field, value, "a positive int")
            if value > MAX_INT:
                _fail(field, value, f"a positive int at most {MAX_INT} (2**31 - 1: an i32 in the kernel)", MAX_INT)
        if self.dtype not in DTYPES:
            _fail("dtype", self.dtype, f"one of {', '.join(DTYPES)}", DTYPES)
        if not isinstance(self.mask, bool):
            _fail("mask", self.mask, "True or False")
        if not isinstance(self.scale, str) or not _scale_ok(self.scale):
            _fail("scale", self.scale, "a positive decimal such as '0.125'")
        if self.waves > MAX_WAVES:
            _fail("waves", self.waves, f"at most {MAX_WAVES} (a workgroup holds at most 1024 lanes)", MAX_WAVES)
        nbytes = 4 * self.rows * self.dim  # the largest tensor: the f32 mask, or x and y in f32
        if nbytes > MAX_INT:
            raise SpecError(
                f"SoftmaxSpec.rows: expected every tensor at most {MAX_INT} bytes (2**31 - 1: the kernel's offsets "
                f"are 32-bit), got {nbytes} bytes of f32 rows; use rows at most {max(MAX_INT // (4 * self.dim), 1)}",
                "SoftmaxSpec.rows",
                self.rows,
                MAX_INT,
            )

    def to_json(self):
        """Every field as a JSON value, in declaration order."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, obj):
        """The spec of a JSON object as to_json writes it (unset optional fields take their defaults)."""
        return cls(**cases_json.spec_fields(cls, obj, SpecError))

    @property
    def scale_value(self):
        """The scale as the kernel multiplies by it: an f32 value."""
        return f32(float(self.scale))

    @property
    def vector(self):
        """Elements a lane moves in one load or store: 16 bytes where the row's length allows, else the
        largest power of two dividing dim (every vector then stays aligned and inside its row)."""
        return math.gcd(self.dim, 16 // ELEM[self.dtype].nbytes)


def _scale_ok(text):
    """Whether `text` spells a positive finite decimal (f32 keeps it positive and finite)."""
    if not _DECIMAL.fullmatch(text):
        return False
    value = f32(float(text)) if float(text) < 3.4e38 else math.inf
    return 0 < value < math.inf
