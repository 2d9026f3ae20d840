"""How IR values are held in numpy, and the float formats numpy lacks.

Scalars are arrays of shape (lanes,), vectors (lanes, n). bf16 is held as
float32 rounded to bf16 after every op; fp8 as uint8 codes. The fp8 codec here
is written from the format definitions (OCP 8-bit floating point spec, E4M3
"fn" and E5M2), independently of the lowering's bit-level encoder: decoding
evaluates the fields, encoding picks the nearest representable value, ties to
the even code, saturating at the largest finite value.
"""

import numpy as np

from ir import types as T

DTYPES = {
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "f16": np.float16,
    "bf16": np.float32,
    "f32": np.float32,
    "f8e4m3": np.uint8,
    "f8e5m2": np.uint8,
}


def dtype(t):
    if isinstance(t, T.PtrType):
        return np.int64
    return DTYPES[T.element(t).name]


def round_bf16(x):
    """float32 array rounded to the nearest bf16 (ties to even), kept as float32."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out)


# (exponent bits, mantissa bits, bias, has infinities) per the OCP spec.
_FP8 = {"f8e4m3": (4, 3, 7, False), "f8e5m2": (5, 2, 15, True)}


def _fp8_values(fmt):
    e_bits, m_bits, bias, has_inf = _FP8[fmt]
    codes = np.arange(256)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    e = (codes >> m_bits) & ((1 << e_bits) - 1)
    m = codes & ((1 << m_bits) - 1)
    value = np.where(e == 0, m * 2.0 ** (1 - bias - m_bits), (1 + m / 2**m_bits) * 2.0 ** (e - bias))
    value = sign * value
    top = e == (1 << e_bits) - 1
    if has_inf:  # E5M2: exponent all ones is inf (m == 0) or NaN
        value = np.where(top & (m == 0), sign * np.inf, value)
        value = np.where(top & (m != 0), np.nan, value)
    else:  # E4M3 fn: only S.1111.111 is NaN
        value = np.where(top & (m == (1 << m_bits) - 1), np.nan, value)
    return value


FP8_VALUES = {fmt: _fp8_values(fmt) for fmt in _FP8}


def fp8_decode(codes, fmt):
    return FP8_VALUES[fmt][codes.astype(np.int64)].astype(np.float32)


def fp8_encode(x, fmt):
    """Nearest fp8 code to each value (ties to the even code), saturating."""
    x = np.asarray(x, dtype=np.float64)
    values = FP8_VALUES[fmt]
    finite = np.flatnonzero(np.isfinite(values[:0x80]))  # the non-negative codes
    pos = values[finite]
    order = np.argsort(pos, kind="stable")
    pos, finite = pos[order], finite[order]
    a = np.minimum(np.abs(np.nan_to_num(x, nan=0.0)), pos[-1])
    hi = np.clip(np.searchsorted(pos, a), 0, len(pos) - 1)
    lo = np.clip(hi - 1, 0, len(pos) - 1)
    d_lo, d_hi = a - pos[lo], pos[hi] - a
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (finite[hi] % 2 == 0) & (hi != lo))
    code = np.where(pick_hi, finite[hi], finite[lo])
    code = np.where(np.signbit(x), code | 0x80, code)
    nan_code = int(np.flatnonzero(np.isnan(values))[0] & 0x7F) if fmt == "f8e4m3" else 0x7E
    return np.where(np.isnan(x), nan_code, code).astype(np.uint8)


def to_float(x, t):
    """Values of type t as float64, for conversions."""
    name = T.element(t).name
    if name in _FP8:
        return FP8_VALUES[name][x.astype(np.int64)]
    return x.astype(np.float64)


def from_float(x, t):
    """float64 values rounded to type t's representation."""
    name = T.element(t).name
    if name in _FP8:
        return fp8_encode(x, name)
    if name == "bf16":
        return round_bf16(x.astype(np.float32))
    return x.astype(DTYPES[name])
