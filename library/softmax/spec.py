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

from errors.errors import FieldError
from family import fields
from family.fields import MAX_INT, f32
from ir import types as T

DTYPES = ("f16", "bf16", "f32")
DEFAULT_SCALE = "1"
DEFAULT_WAVES = 4
DEFAULT_LANE_ELEMENTS = 32
# A spec's type name -> its IR type.
ELEM = {"f16": T.F16, "bf16": T.BF16, "f32": T.F32}
# A workgroup holds at most 1024 lanes (waves x a wave of at most 64).
MAX_WAVES = 16
_INT_FIELDS = ("rows", "dim", "waves", "lane_elements")


class SpecError(FieldError):
    """A softmax spec field is invalid: names the field, the value and what is allowed."""


_fail = fields.refusal(SpecError, "SoftmaxSpec")


@dataclasses.dataclass(frozen=True)
class SoftmaxSpec(fields.JsonSpec):
    error = SpecError
    rows: int
    dim: int
    dtype: str = "f16"
    mask: bool = False
    scale: str = DEFAULT_SCALE
    waves: int = DEFAULT_WAVES
    lane_elements: int = DEFAULT_LANE_ELEMENTS

    def __post_init__(self):
        fields.check_positive_ints(self, _INT_FIELDS, _fail)
        fields.check_choices(self, (("dtype", DTYPES),), _fail)
        fields.check_flags(self, ("mask",), _fail)
        if not fields.positive_decimal(self.scale):
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

    @property
    def scale_value(self):
        """The scale as the kernel multiplies by it: an f32 value."""
        return f32(float(self.scale))

    @property
    def vector(self):
        """Elements a lane moves in one load or store: 16 bytes where the row's length allows, else the
        largest power of two dividing dim (every vector then stays aligned and inside its row)."""
        return math.gcd(self.dim, 16 // ELEM[self.dtype].nbytes)
