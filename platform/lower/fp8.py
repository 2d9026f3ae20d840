"""fp8 (OCP E4M3 "fn" and E5M2): the codec, and its IR form.

LLVM has no fp8 type: fp8 values are i8 codes. Decoding reads a 256-entry
table; encoding rounds to nearest even and saturates to the largest finite
value (NaN stays NaN), the behaviour of AMD's saturating conversions.
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
    # OCP E5M2: IEEE-like; largest finite 57344, 0x7e NaN.
    "f8e5m2": Fp8(5, 2, 15, 0x7B, 0x7E),
}


def decode(code, fmt):
    """The value of an fp8 code (Python float)."""
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


