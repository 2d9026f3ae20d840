"""Matrix-core op ids and their fragments.

An op id names a matrix multiply-accumulate independently of the hardware:
"mma_{M}x{N}x{K}_{A}_{C}" computes D[MxN] = A[MxK] * B[KxN] + C[MxN] with A and
B of type A and C, D of type C. Which archs have which ids is arch data
(platform/arch/archs.json); how many elements each lane holds depends on the
arch family and is the table below.
"""

import dataclasses
import re

from ir import types as T

_ID = re.compile(r"mma_(\d+)x(\d+)x(\d+)_(f16|bf16|fp8)_(f32)$")
_INPUT_TYPES = {"f16": T.F16, "bf16": T.BF16, "fp8": T.F8E4M3}


@dataclasses.dataclass(frozen=True)
class Shape:
    m: int
    n: int
    k: int
    a: T.ScalarType  # A and B element type
    c: T.ScalarType  # C and D element type


def shape(op_id):
    """The Shape of an op id, or None if `op_id` is not one."""
    match = _ID.match(op_id) if isinstance(op_id, str) else None
    if not match:
        return None
    m, n, k = (int(g) for g in match.groups()[:3])
    return Shape(m, n, k, _INPUT_TYPES[match.group(4)], T.F32)


# Elements per lane of (A, B, C) by arch family. gfx9 MFMA spreads each
# operand over 64 lanes; gfx12 and gfx1250 WMMA over 32 lanes; gfx11 WMMA
# gives every lane a whole row of A (column of B), lanes 16-31 repeating 0-15.
FRAGMENTS = {
    "gfx9": lambda s: (s.m * s.k // 64, s.k * s.n // 64, s.m * s.n // 64),
    "gfx11": lambda s: (s.k, s.k, s.m * s.n // 32),
    "gfx12": lambda s: (s.m * s.k // 32, s.k * s.n // 32, s.m * s.n // 32),
    "gfx1250": lambda s: (s.m * s.k // 32, s.k * s.n // 32, s.m * s.n // 32),
}


def fragment_types(op_id, family):
    """(A, B, C) fragment types of `op_id` on an arch of `family`."""
    s = shape(op_id)
    a, b, c = FRAGMENTS[family](s)
    return T.vector(s.a, a), T.vector(s.a, b), T.vector(s.c, c)
