"""The attention problem and its tile: a frozen spec validated on construction.

O = softmax(scale * Q Kᵀ + mask) V per batch and query head, the softmax
over the keys, accumulated in f32 with f32 softmax statistics:

  - Q and O are [batch, seq_q, heads, head_dim] ("bshd") or
    [batch, heads, seq_q, head_dim] ("bhsd"), K and V the same with kv_heads
    and seq_k; head_dim is contiguous, the rest follows from `layout` as
    strides. All four hold `dtype` (f16 or bf16).
  - kv_heads divides heads: query head h reads key/value head
    h // (heads / kv_heads) (grouped-query attention; kv_heads = 1 is
    multi-query, kv_heads = heads plain multi-head).
  - causal: query i sees keys j <= i + seq_k - seq_q (the last query row
    sees every key; with seq_q = seq_k the usual lower triangle).
  - mask "padding": an additive f32 [batch, seq_k] (0 or -inf for BERT's
    padding), the same for every head and query.
  - scale: a decimal string ("0.125"), or "1/sqrt(head_dim)" (the default),
    rounded to f32: a spec holds no floats (platform/ir/SPELLING.md).
  - lse: the kernel also writes log(sum_j exp(scale s_ij + mask_ij)) per
    query row, f32 [batch, heads, seq_q] (for a backward pass).

The tile is part of the spec, flat beside the problem's fields as the tile
tables spell it: the matrix op `mma` ("16x16x16"), block_m query rows a
workgroup computes (waves of block_m / waves rows each), block_n keys a step
of the K/V loop. library/attention/tiles.py picks one per arch and head dim.

head_dim 64 and 128 only: the kernel holds a wave's Q rows and its O
accumulators in registers, and other sizes are not tiled; any other is
refused naming the field. The kernel takes seq_q and seq_k at run time; the
spec's batch, seq_q and seq_k are the problem the numeric gate runs.
"""

import dataclasses
import math

from errors.errors import FieldError
from family import fields
from family.fields import MAX_INT, f32
from ir import types as T
from tile import tile as tiles

DTYPES = ("f16", "bf16")
HEAD_DIMS = (64, 128)
LAYOUTS = ("bshd", "bhsd")
MASKS = ("none", "padding")
DEFAULT_SCALE = "1/sqrt(head_dim)"
# A spec's type name -> its IR type.
ELEM = {"f16": T.F16, "bf16": T.BF16}
_INT_FIELDS = ("batch", "heads", "kv_heads", "seq_q", "seq_k", "head_dim", "block_m", "block_n", "waves")
_CHOICES = (("dtype", DTYPES), ("layout", LAYOUTS), ("mask", MASKS))


class SpecError(FieldError):
    """An attention spec field is invalid: names the field, the value and what is allowed."""


_fail = fields.refusal(SpecError, "AttentionSpec")


@dataclasses.dataclass(frozen=True)
class AttentionSpec(fields.JsonSpec):
    error = SpecError
    batch: int
    heads: int
    kv_heads: int
    seq_q: int
    seq_k: int
    head_dim: int
    dtype: str
    mma: str
    block_m: int
    block_n: int
    waves: int
    causal: bool = False
    mask: str = "none"
    scale: str = DEFAULT_SCALE
    layout: str = "bshd"
    lse: bool = False

    def __post_init__(self):
        fields.check_positive_ints(self, _INT_FIELDS, _fail)
        fields.check_choices(self, _CHOICES, _fail)
        fields.check_flags(self, ("causal", "lse"), _fail)
        if self.head_dim not in HEAD_DIMS:
            allowed = f"one of {', '.join(map(str, HEAD_DIMS))} (the head dims the kernel tiles)"
            _fail("head_dim", self.head_dim, allowed, HEAD_DIMS)
        if self.heads % self.kv_heads:
            _fail("kv_heads", self.kv_heads, f"a divisor of heads ({self.heads})")
        if self.scale != DEFAULT_SCALE and not fields.positive_decimal(self.scale):
            _fail("scale", self.scale, f"{DEFAULT_SCALE!r} or a positive decimal such as '0.125'")
        self._check_tile()
        self._check_tensors()

    def _check_tile(self):
        shapes = tiles.shapes(self.dtype)
        if self.mma not in shapes:
            _fail("mma", self.mma, f"a matrix-core shape of {self.dtype} inputs: one of {', '.join(shapes)}", shapes)
        m, n, k = (int(x) for x in self.mma.split("x"))
        if (m, n) != (16, 16):
            _fail("mma", self.mma, "a 16x16xK shape (a score tile is one query's keys per lane group)", shapes)
        for field, part, why in (
            ("block_m", self.waves * m, f"waves ({self.waves}) x the mma's M ({m})"),
            ("block_n", max(n, k), f"the mma's N and K ({max(n, k)})"),
        ):
            if getattr(self, field) % part:
                _fail(field, getattr(self, field), f"a multiple of {why} = {part}", part)

    def _check_tensors(self):
        """SpecError naming the sequence length when a tensor is over MAX_INT elements' bytes."""
        elem = ELEM[self.dtype].nbytes
        for name, seq, heads in (("Q", "seq_q", self.heads), ("K", "seq_k", self.kv_heads)):
            nbytes = elem * self.batch * getattr(self, seq) * heads * self.head_dim
            if nbytes > MAX_INT:
                limit = MAX_INT // (elem * self.batch * heads * self.head_dim)
                fix = f"use {seq} at most {limit}" if limit else "use a smaller batch"
                raise SpecError(
                    f"AttentionSpec.{seq}: expected every tensor at most {MAX_INT} bytes (2**31 - 1: the kernel's "
                    f"offsets are 32-bit), got {name} of {nbytes} bytes; {fix}",
                    f"AttentionSpec.{seq}",
                    getattr(self, seq),
                    MAX_INT,
                )

    @property
    def op(self):
        """The matrix op id (platform/arch/mma_forms.json)."""
        return f"mma_{self.mma}_{self.dtype}_f32"

    @property
    def scale_value(self):
        """The scale as the kernel multiplies by it: an f32 value."""
        return f32(1 / math.sqrt(self.head_dim) if self.scale == DEFAULT_SCALE else float(self.scale))

    def shape(self, seq, heads):
        """The stored shape of a tensor of `seq` rows and `heads` heads."""
        if self.layout == "bshd":
            return (self.batch, seq, heads, self.head_dim)
        return (self.batch, heads, seq, self.head_dim)

    def grid(self):
        """Workgroups: query blocks across x, heads across y, the batch across z."""
        return (-(-self.seq_q // self.block_m), self.heads, self.batch)
