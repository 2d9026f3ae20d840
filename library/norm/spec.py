"""The norm problem and its tile: a frozen spec validated on construction.

One row of `dim` elements is normalised over its whole length, `rows` rows
of a contiguous [rows, dim] tensor x of `dtype` (f16, bf16 or f32):

  - kind "layernorm": y = (v - mean(v)) / sqrt(var(v) + eps) * weight + bias
  - kind "rmsnorm":   y = v / sqrt(mean(v^2) + eps) * weight
  - affine: with weight (and, for layernorm, bias), each [dim] of `dtype`;
    without, y is the normalised row alone.
  - residual: v = x + residual (a second [rows, dim] tensor), the f32 sum
    rounded to `dtype`, which is what an unfused add would have written;
    residual_out: that sum is also stored ([rows, dim], `dtype`).
  - eps: a positive decimal string ("1e-5"), rounded to f32: a spec holds
    no floats (platform/ir/SPELLING.md).

The statistics are f32: the mean first, then the sum of squared deviations
from it (no E[x^2] - E[x]^2), combined over the row's chunks by Chan's
formula where the row is longer than one chunk (library/norm/norm.py).

The tile is flat beside the problem's fields, as tiles.json spells it:
`threads`, the workgroup that takes one row (a multiple of 64: whole waves
of either wave size), and `per_lane`, the row elements each lane holds in
registers at once (a multiple of 8: every vector width divides it). A chunk
is threads * per_lane elements; a row of one chunk is read once, a longer
one twice. library/norm/tiles.py picks the tile per arch and dim.
"""

import dataclasses

from errors.errors import FieldError
from family import fields
from family.fields import MAX_INT, f32
from ir import types as T

KINDS = ("layernorm", "rmsnorm")
DTYPES = ("f16", "bf16", "f32")
# A spec's type name -> its IR type.
ELEM = {"f16": T.F16, "bf16": T.BF16, "f32": T.F32}
# The bytes one lane moves in a single load or store at most.
VECTOR_BYTES = 16
# Threads of a workgroup: whole waves of 64 (and so of 32) lanes, at most the hardware's 1024.
THREAD_STEP, MAX_THREADS = 64, 1024
# Elements a lane holds: a multiple of every vector width (at most 8 elements), within a register budget.
PER_LANE_STEP, MAX_PER_LANE = 8, 64
_INT_FIELDS = ("rows", "dim", "threads", "per_lane")
_CHOICES = (("kind", KINDS), ("dtype", DTYPES))
_BOOLS = ("affine", "residual", "residual_out")


class SpecError(FieldError):
    """A norm spec field is invalid: names the field, the value and what is allowed."""


_fail = fields.refusal(SpecError, "NormSpec")


@dataclasses.dataclass(frozen=True)
class NormSpec(fields.JsonSpec):
    error = SpecError
    kind: str
    rows: int
    dim: int
    dtype: str
    eps: str
    threads: int
    per_lane: int
    affine: bool = True
    residual: bool = False
    residual_out: bool = False

    def __post_init__(self):
        fields.check_positive_ints(self, _INT_FIELDS, _fail)
        fields.check_choices(self, _CHOICES, _fail)
        fields.check_flags(self, _BOOLS, _fail)
        if not fields.positive_decimal(self.eps):
            _fail("eps", self.eps, "a positive decimal string such as '1e-5' (positive and finite as an f32)")
        if self.threads % THREAD_STEP or self.threads > MAX_THREADS:
            _fail("threads", self.threads, f"a multiple of {THREAD_STEP} at most {MAX_THREADS}", MAX_THREADS)
        if self.per_lane % PER_LANE_STEP or self.per_lane > MAX_PER_LANE:
            _fail("per_lane", self.per_lane, f"a multiple of {PER_LANE_STEP} at most {MAX_PER_LANE}", MAX_PER_LANE)
        if self.residual_out and not self.residual:
            _fail(
                "residual_out",
                True,
                "False without a residual (the sum it writes is x + residual)",
                None,
                "set residual too",
            )
        nbytes = self.rows * self.dim * ELEM[self.dtype].nbytes
        if nbytes > MAX_INT:
            limit = MAX_INT // (self.dim * ELEM[self.dtype].nbytes)
            fix = f"use rows at most {limit}" if limit else "use a smaller dim"
            _fail(
                "rows",
                self.rows,
                f"a [rows, dim] tensor of at most {MAX_INT} bytes (the kernel's offsets are "
                f"32-bit), which is {nbytes} bytes",
                MAX_INT,
                fix,
            )

    @property
    def eps_value(self):
        """eps as the kernel adds it: an f32 value."""
        return f32(float(self.eps))

    @property
    def vec(self):
        """Elements a lane moves at once: the widest power of two of at most 16 bytes that divides dim
        (every row then starts aligned to it); 1 for an odd dim."""
        n = VECTOR_BYTES // ELEM[self.dtype].nbytes
        while self.dim % n:
            n //= 2
        return n

    @property
    def chunk(self):
        """Row elements the workgroup holds in registers at once."""
        return self.threads * self.per_lane

    @property
    def chunks(self):
        """Chunks of a row: 1 reads the row once, more read it twice (statistics, then the output)."""
        return -(-self.dim // self.chunk)
