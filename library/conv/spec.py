"""The convolution problem: a frozen spec validated on construction.

2-D or 3-D, N x C x spatial input, K filters of size `filter` over C/groups
channels, with stride, padding and dilation per spatial dimension. Layout
"NHWC" is channels-last (NDHWC in 3-D), "NCHW" channels-first. Weights are
[K, *filter, C/groups] channels-last and [K, C/groups, *filter]
channels-first. Accumulation is always f32. The epilogue (forward layers
only) is

    y = scale * act(conv + bias + residual)   residual "before_activation"
    y = scale * (act(conv + bias) + residual) residual "after_activation"

with `bias` (K f32 values, one per output channel) and the residual (a
tensor of the output's shape, layout and type) each only where asked,
`activation` one of tile.gemm.ACTIVATIONS and `scale` a decimal string
(the spec holds no floats; the kernel multiplies by its f32 value).

A spec is also JSON (the case lists both engines read, platform/family/
cases_json.py): to_json() gives every field, tuples as lists, and
from_json() reads that back to an equal spec. Int fields accept any integer
(numpy ints included) and tuple fields any list or tuple of them; both are
stored as plain ints and tuples, so such specs compare equal.

Every tensor of the problem (input, weights, output, in the spec's dtype)
must be at most MAX_TENSOR_BYTES = 2**31 - 1 bytes, or the spec is refused
with SpecError naming the tensor, its bytes, the limit and the fix (the
largest batch that fits). Why refuse rather than widen: every conv kernel
(direct, img2col, the implicit GEMMs and what is built on them) computes
element indices and byte offsets in i32, which stay exact for any tensor
below 2**31 bytes and wrap above it. Widening them to i64 would put 64-bit
multiplies and a second VGPR into every offset computation of every
kernel, for problems a caller can split (a batch of launches computes the
same outputs), and leave every other i32 in the frame (the lane id, the
GEMM's M) to audit. Refusing at the spec
means every conv family, the later ones included, inherits the limit;
check_tensor_bytes states it for a family's own buffers (a split-K
workspace) with the same message.
"""

import dataclasses
import math

from errors.errors import FieldError
from family import cases_json, fields
from ir import types as T
from tile.gemm import check_epilogue_fields, scale_value

LAYOUTS = ("NHWC", "NCHW")
DTYPES = ("f32", "f16", "bf16")


# The kernels' element indices and byte offsets are i32 (the docstring says why).
MAX_TENSOR_BYTES = 2**31 - 1
# The C++ engine holds every size in an int64: a larger one is refused, by
# both engines, before any arithmetic on it; so is a padded size past it,
# which keeps every output size an int64 too.
MAX_INT64 = 2**63 - 1
BELOW_2_63 = "below 2**63 (the C++ engine's int64 limit)"


class SpecError(FieldError):
    """A conv spec field is invalid: names the field, the value and what is allowed."""


def check_tensor_bytes(owner, what, shape, elem_bytes, fix, field=None, error=SpecError):
    """`error` if tensor `what` of `shape` (elements of `elem_bytes`) is over
    MAX_TENSOR_BYTES; `owner` names the spec class (the message starts with
    it), `fix` says what to do. Its facts: `field` (`owner` if None), the
    shape, MAX_TENSOR_BYTES."""
    nbytes = elem_bytes * math.prod(shape)
    if nbytes > MAX_TENSOR_BYTES:
        raise error(
            f"{owner}: expected every tensor at most {MAX_TENSOR_BYTES} bytes (2**31 - 1: the kernels' offsets are 32-bit), "
            f"got the {what} {tuple(shape)} of {nbytes} bytes; {fix}",
            field or owner,
            shape,
            MAX_TENSOR_BYTES,
        )


def _tensor_limits(spec):
    """check_tensor_bytes for the input, weights and output."""
    elem = T.SCALARS[spec.dtype].nbytes
    # The input and output scale with the batch: the largest n that keeps both under the limit.
    per_sample = max(elem * math.prod(spec.input_shape()[1:]), elem * math.prod(spec.output_shape()[1:]))
    max_n = MAX_TENSOR_BYTES // per_sample
    if max_n >= 1:
        batch_fix = f"use a smaller batch (n at most {max_n}), or split the batch into launches of at most {max_n}"
    else:
        batch_fix = "even one sample is over the limit: split the spatial extent or the channels into launches"
    for what, shape, fix in (
        ("input", spec.input_shape(), batch_fix),
        ("weights", spec.weight_shape(), "split the filters (k) into launches"),
        ("output", spec.output_shape(), batch_fix),
    ):
        check_tensor_bytes("ConvSpec", what, shape, elem, fix, f"ConvSpec.{what}")


_fail = fields.refusal(SpecError, "ConvSpec")


def _positive_int(field, value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        _fail(field, value, "a positive int")
    if value > MAX_INT64:
        _fail(field, value, f"a positive int {BELOW_2_63}", MAX_INT64)


def _tuple(field, value, dims, minimum):
    if not isinstance(value, tuple) or len(value) != dims:
        _fail(field, value, f"a tuple of {dims} ints (one per spatial dimension)")
    for v in value:
        if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
            _fail(field, value, f"ints >= {minimum}")
        if v > MAX_INT64:
            _fail(field, value, f"ints >= {minimum} and {BELOW_2_63}", MAX_INT64)


_INT_FIELDS = ("n", "c", "k", "groups")
# The epilogue's fields and their defaults (no epilogue), in declaration order.
EPILOGUE_DEFAULTS = (("bias", False), ("activation", "none"), ("residual", "none"), ("scale", "1"))
_TUPLE_FIELDS = ("spatial", "filter", "stride", "pad", "dilation")


@dataclasses.dataclass(frozen=True)
class ConvSpec:
    n: int
    c: int
    k: int
    spatial: tuple  # (H, W) or (D, H, W)
    filter: tuple  # (R, S) or (T, R, S)
    stride: tuple | None = None
    pad: tuple | None = None
    dilation: tuple | None = None
    groups: int = 1
    layout: str = "NHWC"
    dtype: str = "f16"
    bias: bool = False
    activation: str = "none"
    residual: str = "none"
    scale: str = "1"

    def __post_init__(self):
        # Normalise first (JSON lists, numpy ints), so that equal problems are equal specs.
        for field in _INT_FIELDS:
            object.__setattr__(self, field, cases_json.plain_int(getattr(self, field)))
        for field in _TUPLE_FIELDS:
            if isinstance(getattr(self, field), list | tuple):
                object.__setattr__(self, field, tuple(cases_json.plain_int(v) for v in getattr(self, field)))
        for field in _INT_FIELDS:
            _positive_int(field, getattr(self, field))
        if not isinstance(self.spatial, tuple) or len(self.spatial) not in (2, 3):
            _fail("spatial", self.spatial, "(H, W) or (D, H, W)")
        dims = len(self.spatial)
        # Unset stride/dilation default to 1 and pad to 0 in every dimension.
        for field, default in (("stride", 1), ("pad", 0), ("dilation", 1)):
            if getattr(self, field) is None:
                object.__setattr__(self, field, (default,) * dims)
        _tuple("spatial", self.spatial, dims, 1)
        _tuple("filter", self.filter, dims, 1)
        _tuple("stride", self.stride, dims, 1)
        _tuple("pad", self.pad, dims, 0)
        _tuple("dilation", self.dilation, dims, 1)
        if any(x + 2 * p > MAX_INT64 for x, p in zip(self.spatial, self.pad)):
            _fail("pad", self.pad, f"pads that keep every padded size (spatial + 2 * pad) {BELOW_2_63}", MAX_INT64)
        if self.c % self.groups or self.k % self.groups:
            _fail("groups", self.groups, f"a divisor of both c ({self.c}) and k ({self.k})")
        if self.layout not in LAYOUTS:
            _fail("layout", self.layout, f"one of {', '.join(LAYOUTS)}", LAYOUTS)
        if self.dtype not in DTYPES:
            _fail("dtype", self.dtype, f"one of {', '.join(DTYPES)}", DTYPES)
        check_epilogue_fields(self, _fail)
        for i, size in enumerate(self.output):
            if size < 1:
                _fail(
                    "filter",
                    self.filter,
                    f"a dilated filter that fits the padded input in dimension {i} (output size {size})",
                )
        _tensor_limits(self)

    def to_json(self):
        """Every field as a JSON value: tuples as lists."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}

    @classmethod
    def from_json(cls, obj):
        """The spec of a JSON object as to_json writes it (unset optional fields take their defaults)."""
        return cls(**cases_json.spec_fields(cls, obj, SpecError))

    def epilogue_field(self):
        """(field, value, default) of the first epilogue field that changes the output (a scale
        whose f32 value is 1 does not), or None: what a gradient kernel, which has none, refuses."""
        for field, default in EPILOGUE_DEFAULTS:
            value = getattr(self, field)
            if (scale_value(value) != 1.0) if field == "scale" else value != default:
                return field, value, default
        return None

    @property
    def dims(self):
        return len(self.spatial)

    @property
    def output(self):
        return tuple(
            (x + 2 * p - d * (f - 1) - 1) // s + 1
            for x, f, s, p, d in zip(self.spatial, self.filter, self.stride, self.pad, self.dilation)
        )

    @property
    def channels_last(self):
        return self.layout == "NHWC"

    @property
    def c_per_group(self):
        return self.c // self.groups

    @property
    def k_per_group(self):
        return self.k // self.groups

    def input_shape(self):
        return (self.n, *self.spatial, self.c) if self.channels_last else (self.n, self.c, *self.spatial)

    def output_shape(self):
        return (self.n, *self.output, self.k) if self.channels_last else (self.n, self.k, *self.output)

    def weight_shape(self):
        return (
            (self.k, *self.filter, self.c_per_group) if self.channels_last else (self.k, self.c_per_group, *self.filter)
        )

    @property
    def outputs(self):
        return math.prod(self.output_shape())
