"""IR types: scalars, vectors of scalars, and pointers with an address space.

Types are frozen and interned: the constructors below return one object per
distinct type, so equal types are identical and can be compared with `is`.
"""

import dataclasses
import functools

from ir.core import VerifyError


@dataclasses.dataclass(frozen=True)
class ScalarType:
    name: str
    bits: int
    kind: str  # "int" or "float"

    def __str__(self):
        return self.name

    @property
    def is_int(self):
        return self.kind == "int"

    @property
    def is_float(self):
        return self.kind == "float"

    @property
    def nbytes(self):
        return max(1, self.bits // 8)


I1 = ScalarType("i1", 1, "int")
I8 = ScalarType("i8", 8, "int")
I16 = ScalarType("i16", 16, "int")
I32 = ScalarType("i32", 32, "int")
I64 = ScalarType("i64", 64, "int")
F16 = ScalarType("f16", 16, "float")
BF16 = ScalarType("bf16", 16, "float")
F32 = ScalarType("f32", 32, "float")
F8E4M3 = ScalarType("f8e4m3", 8, "float")
F8E5M2 = ScalarType("f8e5m2", 8, "float")

SCALARS = {t.name: t for t in (I1, I8, I16, I32, I64, F16, BF16, F32, F8E4M3, F8E5M2)}


MAX_LANES = 64  # the longest vector


@dataclasses.dataclass(frozen=True)
class VectorType:
    elem: ScalarType
    n: int

    def __str__(self):
        return f"vector<{self.n}x{self.elem}>"

    @property
    def nbytes(self):
        return self.n * self.elem.nbytes

    is_int = property(lambda self: self.elem.is_int)
    is_float = property(lambda self: self.elem.is_float)


# Address space name -> AMDGPU address space number.
ADDRESS_SPACES = {"global": 1, "lds": 3, "constant": 4, "private": 5, "buffer": 8}


@dataclasses.dataclass(frozen=True)
class PtrType:
    space: str

    def __str__(self):
        return f"ptr<{self.space}>"

    @property
    def addrspace(self):
        return ADDRESS_SPACES[self.space]

    is_int = False
    is_float = False


class BadTypeError(VerifyError):
    """A type constructed from bad parts."""


# typed: vector(F32, 2.0) must not find the entry of vector(F32, 2).
@functools.lru_cache(maxsize=None, typed=True)
def vector(elem, n):
    if not isinstance(elem, ScalarType):
        raise BadTypeError(f"vector: expected a scalar element type, got {elem!r}")
    if not isinstance(n, int) or isinstance(n, bool) or n < 2 or n > MAX_LANES:
        raise BadTypeError(f"vector: expected a length in 2..{MAX_LANES}, got {n!r}")
    return VectorType(elem, n)


@functools.lru_cache(maxsize=None, typed=True)
def ptr(space):
    if space not in ADDRESS_SPACES:
        raise BadTypeError(f"ptr: expected an address space in {sorted(ADDRESS_SPACES)}, got {space!r}")
    return PtrType(space)


GLOBAL = ptr("global")
LDS = ptr("lds")
CONSTANT = ptr("constant")
PRIVATE = ptr("private")
BUFFER = ptr("buffer")


def element(t):
    """The scalar type of a scalar or vector type."""
    return t.elem if isinstance(t, VectorType) else t


def lanes(t):
    """1 for a scalar, N for vector<N x T>."""
    return t.n if isinstance(t, VectorType) else 1


def with_element(t, elem):
    """`t` with its scalar type replaced (vector<4xf16> -> vector<4xf32>)."""
    return vector(elem, t.n) if isinstance(t, VectorType) else elem


def int_range(t):
    """(lo, hi) of an integer scalar type: the signed range; i1 is a truth value, 0 or 1."""
    return (0, 1) if t is I1 else (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1)


def is_fp8(t):
    """Whether t is an fp8 scalar or a vector of them (a storage-only type)."""
    return element(t) in (F8E4M3, F8E5M2)


def is_numeric(t):
    return isinstance(t, (ScalarType, VectorType))
