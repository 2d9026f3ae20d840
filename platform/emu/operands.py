"""Operands as the disassembler prints them, and the readers and writers the
semantic tables bind to them once, before the program runs.

    parse("-|v[4:5]|") -> Operand(kind="v", index=4, count=2, neg=True, abs=True)

A vector reader is a function of the wave giving a numpy array of the
operand's type: shape (lanes,) for a VGPR, (1,) for a scalar or constant
(numpy broadcasts it). A vector writer stores an array into the active
lanes only. Scalar readers give Python ints.

Types: u32 i32 f32, u16 i16 f16 bf16 (bf16 is computed in float32), u64 i64
f64. Constants are bit patterns of the operand's type: an integer is its
bits (an inline -1 in a 64-bit operand is all ones), a float (only the inline
constants 0.5, 1.0, 2.0, 4.0, their negatives and 1/(2*pi) print as floats)
is encoded in the operand's float format.
"""

import dataclasses
import functools
import re
import struct

import numpy as np

from emu import state

DTYPES = {
    "b16": np.uint16,
    "b32": np.uint32,
    "b64": np.uint64,
    "u32": np.uint32,
    "i32": np.int32,
    "f32": np.float32,
    "u16": np.uint16,
    "i16": np.int16,
    "f16": np.float16,
    "bf16": np.uint16,
    "u64": np.uint64,
    "i64": np.int64,
    "f64": np.float64,
}
BITS = {t: np.dtype(d).itemsize * 8 for t, d in DTYPES.items()}
UNSIGNED = {16: np.uint16, 32: np.uint32, 64: np.uint64}
FLOATS = frozenset({"f16", "bf16", "f32", "f64"})
_INV_2PI = 0.15915494309189535

_REG = re.compile(r"^(v|s|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])(?:\.([lh]))?$")
_SPECIAL = {
    "src_scc": "scc",
    "scc": "scc",
    "src_execz": "execz",
    "src_vccz": "vccz",
    "src_shared_base": "shared_base",
    "src_shared_limit": "shared_limit",
    "src_private_base": "private_base",
    "src_private_limit": "private_limit",
}


@dataclasses.dataclass(frozen=True)
class Operand:
    text: str
    kind: str  # v a s const special off
    index: int = 0  # register file index (s: state.py's numbering)
    count: int = 1  # registers
    half: str = ""  # "l" or "h" for a true16 VGPR half
    neg: bool = False
    abs: bool = False
    sext: bool = False
    value: object = None  # a constant's int or float, a special's name

    @property
    def is_vgpr(self):
        return self.kind in ("v", "a")


class OperandError(ValueError):
    pass


_HEX = re.compile(r"-?0x[0-9a-fA-F]+")
_INT = re.compile(r"-?\d+")
_FLOAT = re.compile(r"-?\d+\.\d+(e[+-]?\d+)?")


def _number(text):
    if _HEX.fullmatch(text):
        return int(text, 16)
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return None


@functools.lru_cache(maxsize=1 << 16)
def parse(text):
    """Operand of one operand's text; OperandError if it is none the tables know. Cached: a kernel's
    operands repeat (v1, s[0:1], vcc) and binding every instruction of every gate's kernels parses each."""
    body, neg, abs_, sext = text, False, False, False
    if body.startswith("sext(") and body.endswith(")"):
        body, sext = body[5:-1], True
    if body.startswith("neg(") and body.endswith(")"):
        body, neg = body[4:-1], True
    if body.startswith("-") and _number(body) is None:
        body, neg = body[1:], True
    if body.startswith("|") and body.endswith("|"):
        body, abs_ = body[1:-1], True
    if body.startswith("abs(") and body.endswith(")"):
        body, abs_ = body[4:-1], True
    flags = dict(neg=neg, abs=abs_, sext=sext)
    number = _number(body)
    if number is not None:
        return Operand(text, "const", value=number, **flags)
    if body == "off":
        return Operand(text, "off")
    if body in state.NAMED:
        index, count = state.NAMED[body]
        return Operand(text, "s", index, count, **flags)
    if body in _SPECIAL:
        return Operand(text, "special", value=_SPECIAL[body], **flags)
    m = _REG.match(body)
    if not m:
        raise OperandError(f"expected a register, constant or special operand, got {text!r}")
    kind, one, lo, hi, half = m.groups()
    first = int(one) if one is not None else int(lo)
    count = 1 if one is not None else int(hi) - int(lo) + 1
    if kind == "ttmp":
        kind, first = "s", state.TTMP + first
    return Operand(text, kind, first, count, half or "", **flags)


# -- constants -----------------------------------------------------------------------


def constant_bits(op, ty):
    """The bits a constant operand holds as type `ty`."""
    bits = BITS[ty]
    v = op.value
    if isinstance(v, float):
        if ty in ("f16",) or (bits == 16 and ty != "bf16"):
            return int(np.float16(v).view(np.uint16))
        if ty == "bf16":
            return _bf16_bits(np.float32(v))
        if bits == 64:
            return struct.unpack("<Q", struct.pack("<d", v))[0]
        return struct.unpack("<I", struct.pack("<f", v))[0]
    return v & ((1 << bits) - 1)


def _bf16_bits(x):
    b = int(np.float32(x).view(np.uint32))
    return ((b + 0x7FFF + (b >> 16 & 1)) >> 16) & 0xFFFF


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x):
    """float32 -> bf16 bits, rounding to nearest even; NaN stays a quiet NaN."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), r)


# -- scalar access ---------------------------------------------------------------------


def scalar_reader(op, bits, apertures=None):
    """A function of the wave giving the operand's value as an int of `bits` bits."""
    if op.kind == "const":
        value = constant_bits(op, "u64" if bits == 64 else "u32")
        return lambda w: value
    if op.kind == "s":
        i = op.index
        if bits == 64:
            return lambda w: w.s[i] | w.s[i + 1] << 32
        return lambda w: w.s[i]
    if op.kind == "special":
        return _special(op.value, bits, apertures)
    raise OperandError(f"expected a scalar operand, got {op.text!r}")


def _special(name, bits, apertures):
    if name == "scc":
        return lambda w: w.scc
    if name == "execz":
        return lambda w: int(w.exec_bits == 0)
    if name == "vccz":
        return lambda w: int(w.mask(state.VCC) == 0)
    value = apertures[name]
    if bits == 32:
        value &= 0xFFFFFFFF
    return lambda w: value


def scalar_writer(op, bits):
    """A function (wave, int) storing `bits` bits into the SGPR operand."""
    if op.kind != "s":
        raise OperandError(f"expected an SGPR destination, got {op.text!r}")
    i = op.index
    if i in (state.NULL,):
        return lambda w, x: None
    if i >= state.EXEC or (bits == 64 and i + 1 >= state.EXEC):
        if bits == 64:
            return lambda w, x: w.set_exec(x)
        return lambda w, x: w.write_s(i, x)
    if bits == 64:

        def write64(w, x):
            w.s[i] = x & 0xFFFFFFFF
            w.s[i + 1] = (x >> 32) & 0xFFFFFFFF

        return write64

    def write32(w, x):
        w.s[i] = x & 0xFFFFFFFF

    return write32


# -- vector access ---------------------------------------------------------------------

_SDWA = {
    "BYTE_0": (0, 8),
    "BYTE_1": (8, 8),
    "BYTE_2": (16, 8),
    "BYTE_3": (24, 8),
    "WORD_0": (0, 16),
    "WORD_1": (16, 16),
    "DWORD": (0, 32),
}


def _raw_vector(op, bits, high, apertures):
    """Reader of the operand's raw bits: uint16/32/64 arrays."""
    kind, i = op.kind, op.index
    u = UNSIGNED[bits]
    if op.is_vgpr:
        file = "v" if kind == "v" else "a"
        if bits == 64:
            return lambda w: getattr(w, file)[:, i : i + 2].view(np.uint64)[:, 0]
        if bits == 32:
            return (lambda w: w.v[:, i]) if file == "v" else (lambda w: w.a[:, i])
        if high or op.half == "h":
            return lambda w: (getattr(w, file)[:, i] >> 16).astype(np.uint16)
        return lambda w: getattr(w, file)[:, i].astype(np.uint16)
    if kind == "const":
        arr = np.array([constant_bits(op, {16: "u16", 32: "u32", 64: "u64"}[bits])], u)
        return lambda w: arr
    read = scalar_reader(op, 64 if bits == 64 else 32, apertures)
    if bits == 16:
        shift = 16 if high or op.half == "h" else 0
        return lambda w: np.array([(read(w) >> shift) & 0xFFFF], np.uint16)
    return lambda w: np.array([read(w)], u)


def _float_constant(op, ty):
    """A float-typed constant's array (its bits in the type's format, as the type)."""
    bits = constant_bits(op, ty)
    arr = np.array([bits], UNSIGNED[BITS[ty]])
    return arr.view(DTYPES[ty]) if ty != "bf16" else bf16_to_f32(arr)


def vector_reader(op, ty, *, high=False, sdwa=None, apertures=None):
    """A function of the wave giving the operand as an array of type `ty`.

    high: take the high 16 bits (op_sel); sdwa: the SDWA source select
    ("BYTE_1", "WORD_0", ...), applied with the operand's sext before the type."""
    bits = BITS[ty]
    dtype = DTYPES[ty]
    plain = not (op.neg or op.abs or op.sext or high or op.half) and sdwa in (None, "DWORD")
    if plain and bits == 32 and op.kind == "v":  # the common case, in one call
        i = op.index
        if dtype is np.uint32:
            return lambda w: w.v[:, i]
        return lambda w: w.v[:, i].view(dtype)
    if plain and op.kind == "const" and ty != "bf16":
        arr = _float_constant(op, ty) if ty in FLOATS else np.array([constant_bits(op, ty)], UNSIGNED[bits]).view(dtype)
        return lambda w: arr
    if sdwa is not None and sdwa != "DWORD" or (sdwa is not None and op.sext):
        shift, width = _SDWA[sdwa]
        base = _raw_vector(op, 32, False, apertures)
        sext = op.sext

        def select(w):
            x = (base(w) >> np.uint32(shift)) & np.uint32((1 << width) - 1) if width < 32 else base(w)
            if sext and width < 32:
                x = ((x.astype(np.int32) << (32 - width)) >> (32 - width)).view(np.uint32)
            return x.astype(UNSIGNED[bits]) if bits != 32 else x

        raw = select
    else:
        raw = _raw_vector(op, bits, high, apertures)
    if ty == "bf16":
        typed = lambda w: bf16_to_f32(raw(w))  # noqa: E731
    elif dtype is UNSIGNED[bits]:
        typed = raw
    else:
        typed = lambda w: raw(w).view(dtype)  # noqa: E731
    if op.kind == "const" and ty in FLOATS:
        arr = _float_constant(op, ty)
        typed = lambda w: arr  # noqa: E731
    if ty in FLOATS and (op.abs or op.neg):
        plain = typed
        if op.abs and op.neg:
            return lambda w: -np.abs(plain(w))
        if op.abs:
            return lambda w: np.abs(plain(w))
        return lambda w: -plain(w)
    if ty.startswith("b") and (op.abs or op.neg):
        plain, dt = typed, dtype
        sign = dt(1 << (bits - 1))
        keep = dt(~(1 << (bits - 1)) & ((1 << bits) - 1))
        if op.abs and op.neg:
            return lambda w: plain(w) | sign
        if op.abs:
            return lambda w: plain(w) & keep
        return lambda w: plain(w) ^ sign
    if op.neg and ty not in FLOATS:
        plain, mask = typed, (1 << bits) - 1
        return lambda w: ((~plain(w).astype(np.int64) + 1) & mask).astype(dtype)
    return typed


def store(w, column, value):
    """Write `value` (broadcast to the lanes) into `column`'s active lanes."""
    if w.full:
        column[...] = value
    else:
        np.copyto(column, value, where=w.exec)


def vector_writer(op, ty, *, high16=None, sdwa=None):
    """A function (wave, array of type ty) storing into the active lanes.

    16-bit results: high16 None zeroes the high half (gfx9's plain VALU),
    "preserve" keeps the other half (true16 .l/.h, gfx9's d16 and fmac_f16);
    with op.half == "h" or high16 == "high" the value goes to the high half.
    sdwa: (dst_sel, dst_unused) of an SDWA instruction."""
    if not op.is_vgpr:
        raise OperandError(f"expected a VGPR or AGPR destination, got {op.text!r}")
    file, i, bits, dtype = ("v" if op.kind == "v" else "a"), op.index, BITS[ty], DTYPES[ty]

    def bits_of(value):
        if ty == "bf16":
            return f32_to_bf16(value)
        return np.asarray(value).astype(dtype, copy=False).view(UNSIGNED[bits])

    if bits == 64:
        return lambda w, x: store(w, getattr(w, file)[:, i : i + 2].view(np.uint64)[:, 0], bits_of(x))
    if sdwa is not None and sdwa[0] != "DWORD":
        shift, width = _SDWA[sdwa[0]]
        keep = ~np.uint32(((1 << width) - 1) << shift)
        unused = sdwa[1]

        def write_sdwa(w, x):
            value = bits_of(x).astype(np.uint32) & np.uint32((1 << width) - 1)
            col = getattr(w, file)[:, i]
            if unused == "UNUSED_PRESERVE":
                out = (col & keep) | (value << np.uint32(shift))
            elif unused == "UNUSED_SEXT":
                sv = ((value.astype(np.int32) << (32 - width)) >> (32 - width)).view(np.uint32)
                out = sv << np.uint32(shift)
            else:
                out = value << np.uint32(shift)
            store(w, col, out)

        return write_sdwa
    if bits == 32 and file == "v" and ty != "bf16":
        typed = np.dtype(dtype)

        def write32(w, x):
            if x.dtype is not typed:  # numpy's dtypes are singletons: an identity test is the cheap one
                x = x.astype(typed, copy=False)
            if w.full:
                w.v[:, i] = x.view(np.uint32)
            else:
                np.copyto(w.v[:, i], x.view(np.uint32), where=w.exec)

        return write32
    if bits == 32:
        return lambda w, x: store(w, getattr(w, file)[:, i], bits_of(x))
    high = op.half == "h" or high16 == "high"
    preserve = high or op.half == "l" or high16 == "preserve"
    if high:

        def write_high(w, x):
            col = getattr(w, file)[:, i]
            store(w, col, (col & np.uint32(0xFFFF)) | (bits_of(x).astype(np.uint32) << np.uint32(16)))

        return write_high
    if preserve:

        def write_low(w, x):
            col = getattr(w, file)[:, i]
            store(w, col, (col & np.uint32(0xFFFF0000)) | bits_of(x).astype(np.uint32))

        return write_low
    return lambda w, x: store(w, getattr(w, file)[:, i], bits_of(x).astype(np.uint32))
