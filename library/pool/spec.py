"""The pooling problem: a frozen spec validated on construction.

Max or average pooling of an n x c x spatial input, 2-D ([h, w]) or 3-D
([d, h, w]), in the layout "NHWC" (channels last; ndhwc in 3-D) or "NCHW"
(channels first), of f16, bf16 or f32 elements:

  - window, stride, pad (the low side) and pad_end (the high side), one int
    per spatial dimension; stride defaults to the window, pad to 0 and
    pad_end to pad. Output size per dimension:
    (spatial + pad + pad_end - window) // stride + 1.
  - Padding is never read: a max takes the window's input elements only (as
    if the padding held -inf), an average sums them only. count_pad (avg
    only) divides by the whole window, padding included; otherwise by the
    number of input elements the window covers.
  - Every window covers at least one input element: pad and pad_end are
    below the window in every dimension (a window of padding alone has no
    max and no mean).
  - A global average pool is the window of the whole spatial extent (the
    planner's "global" field makes it: app/planner/problems.py).

The kernel's work split is a fact of the spec too (the planner quotes it):
one lane per `vec` channels of an output position in nhwc (VECTOR_BYTES of
them, the last group of a position a tail when c is no multiple), one lane
per output element in nchw; THREADS lanes a workgroup, a 1-D grid.

Sums are f32; a max is exact in any type. Sizes and element offsets are i32
in the kernel, so every int is at most 2**31 - 1 and so is every tensor's
byte count.
"""

import dataclasses
import json
import math
import os

from errors.errors import FieldError
from family import cases_json, fields
from family.fields import MAX_INT
from ir import types as T

KINDS = ("max", "avg")
LAYOUTS = ("NHWC", "NCHW")
DTYPES = ("f16", "bf16", "f32")
# A spec's type name -> its IR type.
ELEM = {"f16": T.F16, "bf16": T.BF16, "f32": T.F32}
# Sizes are i32 in the kernel, and so is every element offset.
# How the kernel splits the work, beside this file (lanes.json), read by both engines.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lanes.json"), encoding="utf-8") as _f:
    _LANES = json.load(_f)
# Lanes per workgroup: 4 waves of 64 on CDNA, 8 of 32 on RDNA.
THREADS = _LANES["threads"]
# Bytes a lane loads and stores at once along the channels (nhwc).
VECTOR_BYTES = _LANES["vector_bytes"]
# The window's last dimension is unrolled when it has at most this many positions (pool.py).
UNROLL = _LANES["unroll"]
_INT_FIELDS = ("n", "c")
# Tuple fields in order, with their least value.
_TUPLE_FIELDS = (("spatial", 1), ("window", 1), ("stride", 1), ("pad", 0), ("pad_end", 0))
_CHOICES = (("kind", KINDS), ("layout", LAYOUTS), ("dtype", DTYPES))


class SpecError(FieldError):
    """A pool spec field is invalid: names the field, the value and what is allowed."""


_fail = fields.refusal(SpecError, "PoolSpec")


def _int_ok(value, minimum):
    return isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= MAX_INT


@dataclasses.dataclass(frozen=True)
class PoolSpec:
    n: int
    c: int
    spatial: tuple  # (h, w) or (d, h, w)
    kind: str
    window: tuple
    stride: tuple | None = None
    pad: tuple | None = None
    pad_end: tuple | None = None
    count_pad: bool = False
    layout: str = "NHWC"
    dtype: str = "f16"

    def __post_init__(self):
        # Normalise first (JSON lists, numpy ints), so that equal problems are equal specs.
        for field in _INT_FIELDS:
            object.__setattr__(self, field, cases_json.plain_int(getattr(self, field)))
        for field, _ in _TUPLE_FIELDS:
            if isinstance(getattr(self, field), list | tuple):
                object.__setattr__(self, field, tuple(cases_json.plain_int(v) for v in getattr(self, field)))
        for field in _INT_FIELDS:
            if not _int_ok(getattr(self, field), 1):
                _fail(field, getattr(self, field), f"a positive int at most {MAX_INT} (an i32 in the kernel)", MAX_INT)
        if not isinstance(self.spatial, tuple) or len(self.spatial) not in (2, 3):
            _fail("spatial", self.spatial, "[h, w] or [d, h, w]")
        dims = len(self.spatial)
        for field, default in (("stride", self.window), ("pad", (0,) * dims)):
            if getattr(self, field) is None:
                object.__setattr__(self, field, default)
        if self.pad_end is None:
            object.__setattr__(self, "pad_end", self.pad)
        for field, minimum in _TUPLE_FIELDS:
            value = getattr(self, field)
            if not isinstance(value, tuple) or len(value) != dims or not all(_int_ok(v, minimum) for v in value):
                _fail(field, value, f"a list of {dims} ints from {minimum} to {MAX_INT} (one per spatial dimension)")
        for field, allowed in _CHOICES:
            if getattr(self, field) not in allowed:
                _fail(field, getattr(self, field), f"one of {', '.join(allowed)}", allowed)
        if not isinstance(self.count_pad, bool):
            _fail("count_pad", self.count_pad, "True or False")
        if self.count_pad and self.kind != "avg":
            _fail("count_pad", self.count_pad, "False for a max pool (padding counts only in an average)")
        for field in ("pad", "pad_end"):
            if any(p >= k for p, k in zip(getattr(self, field), self.window)):
                _fail(
                    field,
                    getattr(self, field),
                    f"each below the window {list(self.window)} (a window of padding alone has no max or mean)",
                )
        for i, size in enumerate(self.output):
            if size < 1:
                _fail(
                    "window", self.window, f"a window that fits the padded input in dimension {i} (output size {size})"
                )
        self._check_tensors()

    def _check_tensors(self):
        """SpecError naming n when the input or output is over MAX_INT bytes."""
        elem = ELEM[self.dtype].nbytes
        for what, shape in (("input", self.input_shape()), ("output", self.output_shape())):
            nbytes = elem * math.prod(shape)
            if nbytes > MAX_INT:
                limit = MAX_INT // (nbytes // self.n)
                fix = f"use n at most {limit}" if limit else "split the channels into launches"
                raise SpecError(
                    f"PoolSpec.n: expected every tensor at most {MAX_INT} bytes (2**31 - 1: the kernel's offsets are "
                    f"32-bit), got the {what} of {nbytes} bytes; {fix}",
                    "PoolSpec.n",
                    self.n,
                    MAX_INT,
                )

    def to_json(self):
        """Every field as a JSON value, in declaration order: tuples as lists."""
        return {f.name: _json(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, obj):
        """The spec of a JSON object as to_json writes it (unset optional fields take their defaults)."""
        return cls(**cases_json.spec_fields(cls, obj, SpecError))

    @property
    def dims(self):
        return len(self.spatial)

    @property
    def output(self):
        """The output's spatial sizes."""
        return tuple(
            (x + p + q - k) // s + 1
            for x, k, s, p, q in zip(self.spatial, self.window, self.stride, self.pad, self.pad_end)
        )

    @property
    def channels_last(self):
        return self.layout == "NHWC"

    @property
    def vec(self):
        """Channels one lane computes: VECTOR_BYTES of them in nhwc, one in nchw."""
        return VECTOR_BYTES // ELEM[self.dtype].nbytes if self.channels_last else 1

    @property
    def groups(self):
        """Lanes per output position in nhwc: one per `vec` channels, and one for the tail; 1 in nchw."""
        return -(-self.c // self.vec) if self.channels_last else 1

    @property
    def lanes(self):
        """Lanes with work: one per group of each output position of each image (and channel, nchw)."""
        return self.n * math.prod(self.output) * (self.groups if self.channels_last else self.c)

    def grid(self):
        """Workgroups of THREADS lanes, along x."""
        return (-(-self.lanes // THREADS), 1, 1)

    def input_shape(self):
        return (self.n, *self.spatial, self.c) if self.channels_last else (self.n, self.c, *self.spatial)

    def output_shape(self):
        return (self.n, *self.output, self.c) if self.channels_last else (self.n, self.c, *self.output)


def _json(value):
    return list(value) if isinstance(value, tuple) else value
