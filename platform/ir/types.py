"""IR types: scalars, vectors of scalars, and pointers with an address space.

Types are frozen and interned: the constructors below return one object per
distinct type, so equal types are identical and can be compared with `is`.

The scalar types, the address spaces and the longest vector are data:
types.json, read here and by the C++ mirror (platform/ir/cpp). Its order
is the order of SCALARS and ADDRESS_SPACES.
"""

import dataclasses
import functools
import json
import os

from ir.core import VerifyError

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "types.json")


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


def _load(path):
    with open(path) as f:
        raw = json.load(f)
    keys = {"address_spaces": ["name", "number"], "scalars": ["bits", "kind", "name"]}
    if sorted(raw) != ["address_spaces", "max_lanes", "scalars"]:
        raise ValueError(f"{path}: expected keys ['address_spaces', 'max_lanes', 'scalars'], got {sorted(raw)}")
    for key, fields in keys.items():
        for i, entry in enumerate(raw[key]):
            if sorted(entry) != fields:
                raise ValueError(f"{path}: {key}/{i}: expected keys {fields}, got {sorted(entry)}")
    for i, entry in enumerate(raw["scalars"]):
        if entry["kind"] not in ("int", "float"):
            raise ValueError(f"{path}: scalars/{i}: expected kind 'int' or 'float', got {entry['kind']!r}")
    return raw


_RAW = _load(PATH)
SCALARS = {e["name"]: ScalarType(e["name"], e["bits"], e["kind"]) for e in _RAW["scalars"]}
MAX_LANES = _RAW["max_lanes"]  # the longest vector

I1, I8, I16, I32, I64 = (SCALARS[n] for n in ("i1", "i8", "i16", "i32", "i64"))
F16, BF16, F32 = SCALARS["f16"], SCALARS["bf16"], SCALARS["f32"]
F8E4M3, F8E5M2 = SCALARS["f8e4m3"], SCALARS["f8e5m2"]


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
ADDRESS_SPACES = {e["name"]: e["number"] for e in _RAW["address_spaces"]}


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
        raise BadTypeError.expected(
            "vector",
            "a scalar element type",
            repr(elem),
            str(elem) if isinstance(elem, ScalarType | VectorType | PtrType) else elem,
        )
    if not isinstance(n, int) or isinstance(n, bool) or n < 2 or n > MAX_LANES:
        raise BadTypeError.expected("vector", f"a length in 2..{MAX_LANES}", repr(n), n)
    return VectorType(elem, n)


@functools.lru_cache(maxsize=None, typed=True)
def ptr(space):
    if space not in ADDRESS_SPACES:
        raise BadTypeError(
            f"ptr: expected an address space in {sorted(ADDRESS_SPACES)}, got {space!r}",
            "ptr",
            space,
            sorted(ADDRESS_SPACES),
        )
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
    e = element(t)
    return e is F8E4M3 or e is F8E5M2


def is_numeric(t):
    return isinstance(t, (ScalarType, VectorType))
