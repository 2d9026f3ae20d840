"""Float formats as bits: f32, f16, bf16 and fp8 (OCP E4M3 "fn" and E5M2).

LLVM has no fp8 type: fp8 values are i8 codes. Encoding rounds to nearest
even and saturates to the largest finite value (NaN stays NaN), like AMD's
saturating conversions. encode_fp8 here and the IR that fp8_ir.py emits
compute the same thing, step by step.
"""

import dataclasses
import math
import struct


@dataclasses.dataclass(frozen=True)
class Fp8:
    exp_bits: int
    man_bits: int
    bias: int
    max_code: int  # largest finite magnitude code
    nan_code: int


FP8 = {
    # OCP E4M3 "fn": no infinities, 0x7f is NaN, largest finite 448.
    "f8e4m3": Fp8(4, 3, 7, 0x7E, 0x7F),
    # OCP E5M2: IEEE-like; largest finite 57344, 0x7c infinity, 0x7d-0x7f NaN.
    "f8e5m2": Fp8(5, 2, 15, 0x7B, 0x7E),
}


def f32_round(x):
    """x rounded to float32 (overflow gives a signed infinity)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", f32_round(x)))[0]


def f16_bits(x):
    try:
        return struct.unpack("<H", struct.pack("<e", x))[0]
    except OverflowError:
        return 0xFC00 if x < 0 else 0x7C00


def bf16_bits(x):
    if math.isnan(x):
        return 0x7FC0
    bits = f32_bits(x)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def decode_fp8(code, fmt):
    """The value of an fp8 code."""
    f = FP8[fmt]
    sign = -1.0 if code & 0x80 else 1.0
    mag = code & 0x7F
    if mag == f.nan_code or (fmt == "f8e5m2" and mag > 0x7C):
        return math.nan
    if fmt == "f8e5m2" and mag == 0x7C:
        return sign * math.inf
    e, m = mag >> f.man_bits, mag & ((1 << f.man_bits) - 1)
    if e == 0:
        return sign * m * 2.0 ** (1 - f.bias - f.man_bits)
    return sign * (1 + m / (1 << f.man_bits)) * 2.0 ** (e - f.bias)


def encode_fp8(x, fmt):
    """Round-to-nearest-even, saturating fp8 code of x."""
    f = FP8[fmt]
    if math.isnan(x):
        return f.nan_code
    sign = 0x80 if math.copysign(1.0, x) < 0 else 0
    a = min(abs(f32_round(x)), decode_fp8(f.max_code, fmt))
    if a < 2.0 ** (1 - f.bias):  # subnormal: a multiple of the smallest step
        return sign | int(round(a * 2.0 ** (f.bias - 1 + f.man_bits)))
    bits = f32_bits(a)
    shift = 23 - f.man_bits
    rounded = bits + (1 << (shift - 1)) - 1 + ((bits >> shift) & 1)
    return sign | min((rounded >> shift) - ((127 - f.bias) << f.man_bits), f.max_code)
