"""The matrix-core forms: one JSON data file (mma_forms.json), read by Python
here and by the C++ mirror (platform/arch/cpp). MMA_FORMS.md (beside this file) documents
the schema and its canonical form.

    from arch import mma_forms
    f = mma_forms.FORMS[("mma_16x16x16_f16_f32", "gfx9")]
    f.archs, f.wave, f.fragment, f.layout   # ("gfx90a", ...), 64, (4, 4, 4), "mfma_16x16x16"
    f.llvm.for_flavor("llvm22").form        # the operand form that LLVM declares

Every other table of (op id, arch generation) keys (ir/mma.py, lower/intrinsics.py,
interp/layouts.py, tile/fragments.py, arch.Arch.matrix) is built from FORMS.
"""

import dataclasses
import json
import os
import types

from arch.flavor_facts import NAMES
from arch.schema import Schema

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mma_forms.json")

# The op id's element-type tokens (A/B, and C/D); ir/mma.py maps them to IR types.
AB_TYPES = ("bf16", "f16", "fp8")
C_TYPES = ("f32",)
WAVES = (32, 64)
# How the lowering lays out the intrinsic's operands (platform/lower/llvm.py):
# "mfma" (a, b, c, i32 0, i32 0, i32 0); "wmma" (a, b, c); "wmma8" (i1 false, a,
# i1 false, b, i16 0, c, i1 false, i1 false); "wmma6" (a, b, i16 0, c, i1 false, i1 false).
OPERAND_FORMS = ("mfma", "wmma", "wmma6", "wmma8")
# How an A/B fragment becomes the `ab` type: "" as is, "bitcast" (bf16 as i16
# bits, fp8 as packed integers).
CASTS = ("", "bitcast")


class MmaFormsError(ValueError):
    """mma_forms.json breaks its schema."""


@dataclasses.dataclass(frozen=True)
class Shape:
    m: int
    n: int
    k: int
    a: str  # A and B element type token
    c: str  # C and D element type token

    def op_id(self):
        return f"mma_{self.m}x{self.n}x{self.k}_{self.a}_{self.c}"


@dataclasses.dataclass(frozen=True)
class Llvm:
    intrinsic: str
    ab: str  # LLVM type of the A and B operands
    c: str  # LLVM type of C and D
    form: str  # one of OPERAND_FORMS
    cast: str  # one of CASTS
    flavors: types.MappingProxyType  # flavor -> {field: value} where that LLVM differs

    def for_flavor(self, flavor):
        """This form as LLVM flavor `flavor` declares it (the overrides applied)."""
        return dataclasses.replace(self, **self.flavors.get(flavor, {}), flavors=types.MappingProxyType({}))


@dataclasses.dataclass(frozen=True)
class Form:
    op: str
    generation: str
    shape: Shape
    archs: tuple  # the archs of `generation` that have this op
    wave: int  # the wave size the op runs in
    fragment: tuple  # elements per lane of (A, B, C)
    layout: str  # lane layout id: interp/layouts.py and tile/fragments.py key on it
    llvm: Llvm


_OP_KEYS = ("generations", "shape")
_SHAPE_KEYS = ("a", "c", "k", "m", "n")
_GENERATION_KEYS = ("archs", "fragment", "layout", "llvm", "wave")
_FRAGMENT_KEYS = ("a", "b", "c")
_LLVM_KEYS = ("ab", "c", "cast", "flavors", "form", "intrinsic")
_OVERRIDABLE = ("ab", "c", "cast", "form", "intrinsic")


_S = Schema(MmaFormsError, "platform/arch/MMA_FORMS.md")
_check, _keys, _positive, _choice, _name = _S.check, _S.keys, _S.positive, _S.choice, _S.name


def _shape(raw, where):
    _keys(raw, _SHAPE_KEYS, where)
    for d in ("m", "n", "k"):
        _positive(raw[d], f"{where}.{d}")
    _choice(raw["a"], AB_TYPES, f"{where}.a")
    _choice(raw["c"], C_TYPES, f"{where}.c")
    return Shape(raw["m"], raw["n"], raw["k"], raw["a"], raw["c"])


def _llvm(raw, where):
    _keys(raw, _LLVM_KEYS, where)
    fields = {key: raw[key] for key in _OVERRIDABLE}
    _check(isinstance(raw["flavors"], dict), f"{where}.flavors", "an object flavor -> overrides", raw["flavors"])
    flavors = {}
    for flavor, over in sorted(raw["flavors"].items()):
        at = f"{where}.flavors.{flavor}"
        _choice(flavor, NAMES, at)
        _check(
            isinstance(over, dict) and over and set(over) <= set(_OVERRIDABLE),
            at,
            f"a non-empty object with keys among {list(_OVERRIDABLE)}",
            over,
        )
        _check(all(over[key] != fields[key] for key in over), at, "only values that differ from the entry's own", over)
        flavors[flavor] = types.MappingProxyType(dict(over))
    for merged, at in [(fields, where)] + [({**fields, **over}, f"{where}.flavors.{f}") for f, over in flavors.items()]:
        for key in ("intrinsic", "ab", "c"):
            _name(merged[key], f"{at}.{key}")
        _choice(merged["form"], OPERAND_FORMS, f"{at}.form")
        _choice(merged["cast"], CASTS, f"{at}.cast")
    return Llvm(**fields, flavors=types.MappingProxyType(flavors))


def _form(op, generation, shape, raw, where):
    _keys(raw, _GENERATION_KEYS, where)
    archs = raw["archs"]
    _check(
        isinstance(archs, list) and archs and archs == sorted(set(archs)),
        f"{where}.archs",
        "a non-empty sorted list without repeats",
        archs,
    )
    for a in archs:
        _name(a, f"{where}.archs")
    _choice(raw["wave"], WAVES, f"{where}.wave")
    _keys(raw["fragment"], _FRAGMENT_KEYS, f"{where}.fragment")
    for part in _FRAGMENT_KEYS:
        _positive(raw["fragment"][part], f"{where}.fragment.{part}")
    _name(raw["layout"], f"{where}.layout")
    fragment = tuple(raw["fragment"][p] for p in _FRAGMENT_KEYS)
    # Each of A, B and C/D must be spread over the wave's lanes completely
    # (gfx11 WMMA holds A and B twice, lanes 16-31 repeating 0-15).
    for part, n, size in zip("abc", fragment, (shape.m * shape.k, shape.k * shape.n, shape.m * shape.n)):
        _check(
            n * raw["wave"] % size == 0,
            f"{where}.fragment.{part}",
            f"a count whose {raw['wave']} lanes hold the {size} elements a whole number of times",
            n,
        )
    return Form(
        op, generation, shape, tuple(archs), raw["wave"], fragment, raw["layout"], _llvm(raw["llvm"], f"{where}.llvm")
    )


def load(path=PATH):
    """(op id, generation) -> Form, read-only. MmaFormsError names the file and the entry on bad data."""
    try:
        with open(path) as f:
            raw = json.load(f)
    except (OSError, json.JSONDecodeError) as err:
        raise MmaFormsError(f"{path}: expected a readable JSON file, got {err}") from None
    _check(isinstance(raw, dict) and raw, path, "a non-empty object op id -> entry", raw)
    table = {}
    for op, entry in sorted(raw.items()):
        where = f"{path}: {op}"
        _keys(entry, _OP_KEYS, where)
        shape = _shape(entry["shape"], f"{where}.shape")
        _check(op == shape.op_id(), where, f"the op id its shape spells, {shape.op_id()}", op)
        _check(
            isinstance(entry["generations"], dict) and entry["generations"],
            f"{where}.generations",
            "a non-empty object generation -> form",
            entry["generations"],
        )
        for generation, form in sorted(entry["generations"].items()):
            table[(op, generation)] = _form(op, generation, shape, form, f"{where}.generations.{generation}")
    return types.MappingProxyType(table)


FORMS = load()
