"""The GEMM problem and its tile: a frozen spec validated on construction.

C[m x n] = A[m x k] @ B[k x n], f32 accumulate, C row-major in `out`.
A and B hold `dtype` (fp8 is f8e4m3) and are each "row" (row-major: A as
m rows of k, B as k rows of n) or "col" (column-major: A as k rows of m,
B as n rows of k), packed (leading dimension k or m for A, n or k for B).
With bias_relu the kernel adds n f32 bias values (one per column) and
clamps at zero before converting to `out`.

The tile is part of the spec: the matrix-core shape `mma` ("MxNxK"), the
block a workgroup computes (block_m x block_n, block_k per step) and its
waves (waves_m x waves_n). library/gemm/tiles.py picks them per arch.

A spec is also JSON (the case lists both engines read, platform/family/
cases_json.py): to_json() gives every field, from_json() reads it back to an
equal spec. Int fields accept any integer (numpy ints included), stored as
plain ints, so such specs compare equal.

What the kernel's i32 cannot hold is refused, naming the field: m, n and k
(the kernel's i32 arguments) and the tile's sizes are each at most
MAX_INT = 2**31 - 1, and so is every tensor's size in bytes (A, B, C and
the bias: the kernel's element and byte offsets are i32, as conv's are, for
the reason library/conv/spec.py gives). A tensor too large names the size
to cut: the first of its two (m for A and C, n for B) while one row of it
fits, else the other.
"""

import dataclasses
import math

from arch.mma_forms import FORMS
from errors.errors import FieldError
from family import cases_json
from ir import types as T

DTYPES = ("f16", "bf16", "fp8")
OUTS = ("f16", "bf16", "f32")
LAYOUTS = ("row", "col")
# A spec's type name -> its IR type (fp8 is f8e4m3).
ELEM = {"f16": T.F16, "bf16": T.BF16, "fp8": T.F8E4M3, "f32": T.F32}


def mma_shapes(dtype, arch=None):
    """The "MxNxK" shapes of the f32-accumulating matrix ops on `dtype`
    inputs that `arch` has (any arch if None), from mma_forms.json, smallest
    first."""
    shapes = {
        (f.shape.m, f.shape.n, f.shape.k)
        for f in FORMS.values()
        if (f.shape.a, f.shape.c) == (dtype, "f32") and (arch is None or arch in f.archs)
    }
    return ["x".join(map(str, shape)) for shape in sorted(shapes)]


class SpecError(FieldError):
    """A GEMM spec field is invalid: names the field, the value and what is allowed."""


def _fail(field, value, allowed, choices=None):
    """SpecError for GemmSpec.`field`; `choices` is `allowed` as data where it is a list or a limit."""
    raise SpecError(f"GemmSpec.{field}: expected {allowed}, got {value!r}", f"GemmSpec.{field}", value, choices)


def _fail_tensor(field, shape, got):
    allowed = f"every tensor at most {MAX_INT} bytes (2**31 - 1: the kernel's offsets are 32-bit)"
    raise SpecError(f"GemmSpec.{field}: expected {allowed}, {got}", f"GemmSpec.{field}", shape, MAX_INT)


# Every int field is an i32 in the kernel (m, n and k its arguments; the
# tile's sizes, also int in the C++ engine's tile config): each at most
# MAX_INT, so no product of two (waves x the mma's size, a tensor's rows x
# columns x 4 bytes) passes 64 bits either. Field -> why, for the message.
MAX_INT = 2**31 - 1
_INT_FIELDS = {
    **dict.fromkeys(("m", "n", "k"), "the kernel takes m, n and k as i32"),
    **dict.fromkeys(("block_m", "block_n", "block_k", "waves_m", "waves_n"), "a tile size is an i32"),
}
_CHOICES = (("dtype", DTYPES), ("out", OUTS), ("layout_a", LAYOUTS), ("layout_b", LAYOUTS))


@dataclasses.dataclass(frozen=True)
class GemmSpec:
    m: int
    n: int
    k: int
    dtype: str
    out: str
    mma: str  # "MxNxK", e.g. "16x16x16"
    block_m: int
    block_n: int
    block_k: int
    waves_m: int
    waves_n: int
    layout_a: str = "row"
    layout_b: str = "row"
    bias_relu: bool = False

    def __post_init__(self):
        for field, why in _INT_FIELDS.items():
            value = cases_json.plain_int(getattr(self, field))
            object.__setattr__(self, field, value)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                _fail(field, value, "a positive int")
            if value > MAX_INT:
                _fail(field, value, f"a positive int at most {MAX_INT} (2**31 - 1: {why})", MAX_INT)
        for field, allowed in _CHOICES:
            if getattr(self, field) not in allowed:
                _fail(field, getattr(self, field), f"one of {', '.join(allowed)}", allowed)
        if not isinstance(self.bias_relu, bool):
            _fail("bias_relu", self.bias_relu, "True or False")
        shapes = mma_shapes(self.dtype)
        if self.mma not in shapes:
            _fail("mma", self.mma, f"a matrix-core shape of {self.dtype} inputs: one of {', '.join(shapes)}", shapes)
        mm, mn, mk = self.mma_shape
        for field, size, part, why in (
            ("block_m", self.block_m, self.waves_m * mm, f"waves_m ({self.waves_m}) x the mma's M ({mm})"),
            ("block_n", self.block_n, self.waves_n * mn, f"waves_n ({self.waves_n}) x the mma's N ({mn})"),
            ("block_k", self.block_k, mk, f"the mma's K ({mk})"),
        ):
            if size % part:
                _fail(field, size, f"a multiple of {why} = {part}", part)
        self._check_tensors()

    def tensors(self):
        """(name, stored shape, element bytes, its sizes' fields in the order
        a message names them) of every tensor the kernel addresses."""
        ab, out = ELEM[self.dtype].nbytes, ELEM[self.out].nbytes
        bias = [("the bias", (self.n,), 4, ("n",))] if self.bias_relu else []
        return [
            ("A", self.a_shape(), ab, ("m", "k")),
            ("B", self.b_shape(), ab, ("n", "k")),
            ("C", (self.m, self.n), out, ("m", "n")),
            *bias,
        ]

    def _check_tensors(self):
        """SpecError if a tensor is over MAX_INT bytes (the module doc says
        why), naming the first of its sizes that alone can bring it under,
        and how far; both when neither can."""
        for what, shape, elem, fields in self.tensors():
            nbytes = elem * math.prod(shape)
            if nbytes <= MAX_INT:
                continue
            sizes = {f: getattr(self, f) for f in fields}
            cuts = [(f, MAX_INT // (nbytes // sizes[f])) for f in fields]
            field, limit = next(((f, limit) for f, limit in cuts if limit >= 1), (fields[0], 0))
            fix = f"use {field} at most {limit}" if limit else f"use smaller {' and '.join(fields)}"
            _fail_tensor(field, shape, f"got {what} {shape} of {nbytes} bytes; {fix}")

    def to_json(self):
        """Every field as a JSON value."""
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, obj):
        """The spec of a JSON object as to_json writes it (unset optional fields take their defaults)."""
        return cls(**cases_json.spec_fields(cls, obj, SpecError))

    @property
    def mma_shape(self):
        """(M, N, K) of the matrix-core op."""
        return tuple(int(x) for x in self.mma.split("x"))

    @property
    def op(self):
        """The matrix op id (platform/arch/mma_forms.json)."""
        return f"mma_{self.mma}_{self.dtype}_f32"

    @property
    def waves(self):
        return self.waves_m * self.waves_n

    def a_shape(self):
        """The shape A is stored in."""
        return (self.m, self.k) if self.layout_a == "row" else (self.k, self.m)

    def b_shape(self):
        """The shape B is stored in."""
        return (self.k, self.n) if self.layout_b == "row" else (self.n, self.k)

    def grid(self):
        """Workgroups: block columns across x, block rows across y."""
        return (-(-self.n // self.block_n), -(-self.m // self.block_m), 1)
