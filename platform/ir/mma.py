"""Matrix-core op ids and their fragments, as IR types.

An op id names a matrix multiply-accumulate independently of the hardware:
"mma_{M}x{N}x{K}_{A}_{C}" computes D[MxN] = A[MxK] * B[KxN] + C[MxN] with A and
B of type A and C, D of type C. The ids, which archs have them and how many
elements each lane holds are data: platform/arch/mma_forms.json. This module
only maps its element-type tokens to IR types.
"""

import dataclasses

from arch.mma_forms import AB_TYPES, C_TYPES, FORMS
from ir import types as T

# Op id token -> IR type (fp8 is f8e4m3). A token the loader allows without
# an IR type here fails at import.
TYPES = {"bf16": T.BF16, "f16": T.F16, "fp8": T.F8E4M3, "f32": T.F32}
if set(TYPES) != set(AB_TYPES + C_TYPES):
    raise ImportError(
        f"ir/mma.py TYPES: expected the tokens of arch/mma_forms.py {sorted(AB_TYPES + C_TYPES)}, got {sorted(TYPES)}"
    )


@dataclasses.dataclass(frozen=True)
class Shape:
    m: int
    n: int
    k: int
    a: T.ScalarType  # A and B element type
    c: T.ScalarType  # C and D element type


_SHAPES = {
    op: Shape(f.shape.m, f.shape.n, f.shape.k, TYPES[f.shape.a], TYPES[f.shape.c]) for (op, _), f in FORMS.items()
}


def shape(op_id):
    """The Shape of an op id, or None if `op_id` is not one."""
    return _SHAPES.get(op_id) if isinstance(op_id, str) else None


def fragment_types(op_id, generation):
    """(A, B, C) fragment types of `op_id` on an arch of `generation`."""
    s = shape(op_id)
    a, b, c = FORMS[(op_id, generation)].fragment
    return T.vector(s.a, a), T.vector(s.a, b), T.vector(s.c, c)
