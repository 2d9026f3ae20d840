"""The GEMM problem and its tile: a frozen spec validated on construction.

C[m x n] = A[m x k] @ B[k x n], f32 accumulate, C row-major in `out`.
A and B hold `dtype` (fp8 is f8e4m3) and are each "row" (row-major: A as
m rows of k, B as k rows of n) or "col" (column-major: A as k rows of m,
B as n rows of k), packed (leading dimension k or m for A, n or k for B).
The epilogue, before the conversion to `out`, is

    C = scale * act(A @ B + bias + R)   residual "before_activation"
    C = scale * (act(A @ B + bias) + R) residual "after_activation"

with `bias` (n f32 values, one per column) and the residual R (m x n in
`out`, row-major like C) each only where asked, `activation` one of
tile.gemm.ACTIVATIONS and `scale` a decimal string (the spec holds no
floats; the kernel multiplies by its f32 value).

The tile is part of the spec: `tile`, a tile.tile.Tile (the matrix-core
shape, the block a workgroup computes and its waves), validated as a tile
and its mma narrowed to the shapes of `dtype` inputs. library/gemm/tiles.py
picks one per arch.

A spec is also JSON (the case lists both engines read, platform/family/
cases_json.py): to_json() gives every field, the tile's (mma, block_m,
block_n, block_k, waves_m, waves_n) beside the problem's, and from_json()
reads it back to an equal spec. Int fields accept any integer (numpy ints
included), stored as plain ints, so such specs compare equal.

What the kernel's i32 cannot hold is refused, naming the field: m, n and k
(the kernel's i32 arguments) and the tile's sizes (tile.tile.MAX_SIZE) are
each at most MAX_INT = 2**31 - 1, and so is every tensor's size in bytes (A, B, C and
the bias: the kernel's element and byte offsets are i32, as conv's are, for
the reason library/conv/spec.py gives). A tensor too large names the size
to cut: the first of its two (m for A and C, n for B) while one row of it
fits, else the other.
"""

import dataclasses
import math

from errors.errors import FieldError
from family import cases_json
from family.fields import MAX_INT, check_choices, check_positive_ints, refusal
from ir import types as T
from tile import tile as tiles
from tile.gemm import check_epilogue_fields
from tile.tile import Tile

DTYPES = ("f16", "bf16", "fp8")
OUTS = ("f16", "bf16", "f32")
LAYOUTS = ("row", "col")
# A spec's type name -> its IR type (fp8 is f8e4m3).
ELEM = {"f16": T.F16, "bf16": T.BF16, "fp8": T.F8E4M3, "f32": T.F32}


class SpecError(FieldError):
    """A GEMM spec field is invalid: names the field, the value and what is allowed."""


_fail = refusal(SpecError, "GemmSpec")


def _fail_tensor(field, shape, got):
    allowed = f"every tensor at most {MAX_INT} bytes (2**31 - 1: the kernel's offsets are 32-bit)"
    raise SpecError(f"GemmSpec.{field}: expected {allowed}, {got}", f"GemmSpec.{field}", shape, MAX_INT)


# m, n and k are i32 in the kernel (its arguments): each at most MAX_INT,
# so no product of two (a tensor's rows x columns x 4 bytes) passes 64 bits.
_INT_FIELDS = ("m", "n", "k")
_CHOICES = (("dtype", DTYPES), ("out", OUTS), ("layout_a", LAYOUTS), ("layout_b", LAYOUTS))


@dataclasses.dataclass(frozen=True)
class GemmSpec:
    m: int
    n: int
    k: int
    dtype: str
    out: str
    tile: Tile
    layout_a: str = "row"
    layout_b: str = "row"
    bias: bool = False
    activation: str = "none"
    residual: str = "none"
    scale: str = "1"

    def __post_init__(self):
        if not isinstance(self.tile, Tile):
            _fail("tile", self.tile, "a tile.tile.Tile")
        check_positive_ints(self, _INT_FIELDS, _fail, "the kernel takes m, n and k as i32")
        check_choices(self, _CHOICES, _fail)
        check_epilogue_fields(self, _fail)
        shapes = tiles.shapes(self.dtype)
        if self.tile.mma not in shapes:
            allowed = f"a matrix-core shape of {self.dtype} inputs: one of {', '.join(shapes)}"
            _fail("tile.mma", self.tile.mma, allowed, shapes)
        self._check_tensors()

    def tensors(self):
        """(name, stored shape, element bytes, its sizes' fields in the order
        a message names them) of every tensor the kernel addresses."""
        ab, out = ELEM[self.dtype].nbytes, ELEM[self.out].nbytes
        bias = [("the bias", (self.n,), 4, ("n",))] if self.bias else []
        residual = [("the residual", (self.m, self.n), out, ("m", "n"))] if self.residual != "none" else []
        return [
            ("A", self.a_shape(), ab, ("m", "k")),
            ("B", self.b_shape(), ab, ("n", "k")),
            ("C", (self.m, self.n), out, ("m", "n")),
            *bias,
            *residual,
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
        """Every field as a JSON value, the tile's beside the others, in declaration order."""
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out.update(value.to_json() if isinstance(value, Tile) else {f.name: value})
        return out

    @classmethod
    def from_json(cls, obj):
        """The spec of a JSON object as to_json writes it (unset optional fields take their defaults)."""
        fields = cases_json.spec_fields(cls, obj, SpecError, flat={"tile": tiles.FIELDS})
        rest = {k: v for k, v in fields.items() if k not in tiles.FIELDS}
        return cls(tile=Tile.of(fields, "GemmSpec.tile", SpecError), **rest)

    @property
    def op(self):
        """The matrix op id (platform/arch/mma_forms.json)."""
        return f"mma_{self.tile.mma}_{self.dtype}_f32"

    def a_shape(self):
        """The shape A is stored in."""
        return (self.m, self.k) if self.layout_a == "row" else (self.k, self.m)

    def b_shape(self):
        """The shape B is stored in."""
        return (self.k, self.n) if self.layout_b == "row" else (self.n, self.k)

    def grid(self):
        """Workgroups: block columns across x, block rows across y."""
        return (-(-self.n // self.tile.block_n), -(-self.m // self.tile.block_m), 1)
