"""How IR types and constants are spelled in LLVM IR (../ir/SPELLING.md).

Integers are decimal in the signed range; float constants are LLVM's hex
forms of their bits: f32 as the 16 hex digits of the equal double (the .rk
spelling, ir/literals.py), f16 as 0xH and 4 digits, bf16 as 0xR and 4 digits.
"""

from ir import literals
from ir import types as T
from lower import floats

_SCALAR = {
    "i1": "i1",
    "i8": "i8",
    "i16": "i16",
    "i32": "i32",
    "i64": "i64",
    "f16": "half",
    "bf16": "bfloat",
    "f32": "float",
    "f8e4m3": "i8",
    "f8e5m2": "i8",
}


def ltype(t):
    if isinstance(t, T.PtrType):
        return f"ptr addrspace({t.addrspace})"
    if isinstance(t, T.VectorType):
        return f"<{t.n} x {_SCALAR[t.elem.name]}>"
    return _SCALAR[t.name]


def suffix(t):
    """The intrinsic name suffix of a type: f32, v4f16, i32."""
    if isinstance(t, T.VectorType):
        return f"v{t.n}{suffix(t.elem)}"
    return {"half": "f16", "bfloat": "bf16", "float": "f32"}.get(ltype(t), ltype(t))


def _f32_literal(value):
    # LLVM spells a float constant as the bits of the equal double.
    return literals.float_text(floats.f32_round(value))


# Float constant spellings by type (fp8 has none: it is storage-only).
_FLOAT_LITERALS = {
    "f32": _f32_literal,
    "f16": lambda value: "0xH%04X" % floats.f16_bits(value),
    "bf16": lambda value: "0xR%04X" % floats.bf16_bits(value),
}


def literal(value, t):
    """The LLVM spelling of a constant of scalar type t."""
    if t is T.I1:
        return "true" if value else "false"
    if t.is_int:  # the verifier keeps it in the signed range: one spelling
        return str(value)
    return _FLOAT_LITERALS[t.name](value)
