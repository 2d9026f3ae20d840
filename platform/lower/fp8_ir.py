"""fp8 conversions as LLVM IR: a table load to decode, floats.encode_fp8 to encode."""

from ir import types as T
from lower import floats
from lower.intrinsics import spell
from lower.spelling import literal


def decode(e, code, fmt):
    """f32 value of the i8 code `code`."""
    table = f"@rocke.{fmt}.values"
    entries = ", ".join(f"float {literal(floats.decode_fp8(c, fmt), T.F32)}" for c in range(256))
    e.add_global("fp8_table", fmt, f"{table} = internal addrspace(4) constant [256 x float] [{entries}], align 4")
    index = e.inst(f"zext i8 {code} to i32")
    p = e.inst(f"getelementptr inbounds [256 x float], ptr addrspace(4) {table}, i32 0, i32 {index}")
    return e.inst(f"load float, ptr addrspace(4) {p}, align 4")


def encode(e, x, fmt):
    """i8 code of the f32 value `x`: floats.encode_fp8, step by step."""
    f = floats.FP8[fmt]
    shift = 23 - f.man_bits
    bits = e.inst(f"bitcast float {x} to i32")
    sign = e.inst(f"lshr i32 {bits}, 24")
    sign = e.inst(f"and i32 {sign}, 128")
    absbits = e.inst(f"and i32 {bits}, 2147483647")
    a = e.inst(f"bitcast i32 {absbits} to float")
    a = e.call(
        "float", spell("minnum", "f32"), [f"float {a}", f"float {literal(floats.decode_fp8(f.max_code, fmt), T.F32)}"]
    )
    # Subnormal: round a / smallest-step to nearest even.
    sub = e.inst(f"fmul float {a}, {literal(2.0 ** (f.bias - 1 + f.man_bits), T.F32)}")
    sub = e.call("float", spell("rint", "f32"), [f"float {sub}"])
    sub = e.inst(f"fptoui float {sub} to i32")
    # Normal: round the f32 mantissa to man_bits bits, rebias the exponent.
    abits = e.inst(f"bitcast float {a} to i32")
    odd = e.inst(f"lshr i32 {abits}, {shift}")
    odd = e.inst(f"and i32 {odd}, 1")
    rounded = e.inst(f"add i32 {abits}, {(1 << (shift - 1)) - 1}")
    rounded = e.inst(f"add i32 {rounded}, {odd}")
    rounded = e.inst(f"lshr i32 {rounded}, {shift}")
    normal = e.inst(f"sub i32 {rounded}, {(127 - f.bias) << f.man_bits}")
    normal = e.call("i32", spell("umin", "i32"), [f"i32 {normal}", f"i32 {f.max_code}"])
    tiny = e.inst(f"fcmp olt float {a}, {literal(2.0 ** (1 - f.bias), T.F32)}")
    code = e.inst(f"select i1 {tiny}, i32 {sub}, i32 {normal}")
    code = e.inst(f"or i32 {code}, {sign}")
    nan = e.inst(f"fcmp uno float {x}, {literal(0.0, T.F32)}")
    code = e.inst(f"select i1 {nan}, i32 {f.nan_code}, i32 {code}")
    return e.inst(f"trunc i32 {code} to i8")
