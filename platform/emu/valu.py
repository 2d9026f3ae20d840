"""Vector ALU semantics: one entry per operation, bound by a few shapes.

Each operation is a numpy function of typed lane arrays. Integer results
wrap (uint32 arithmetic); 24-bit multiplies use the low 24 bits; f32 math is
numpy float32 (round to nearest even, denormals kept, which is what every
kernel here asks for: the descriptor's FLOAT_DENORM_MODE and ROUND_MODE are
checked at launch). An FMA is computed in float64 (the product is exact
there) and rounded once more to float32.

16-bit results: gfx9 zeroes the high half of the destination for ordinary
16-bit ops and keeps it for the d16-style ones (LLVM's
GCNSubtarget::zeroesHigh16BitsOfDest); gfx10 on keeps it, and true16
operands (v1.l, v1.h) name the half.
"""

import dataclasses
from typing import Callable

import numpy as np

from emu import dpp
from emu import operands as O
from emu import state
from emu.errors import ExecutionError
from emu.table import register

U32, I32, U64 = np.uint32, np.int32, np.uint64
_M24 = U32(0xFFFFFF)


class BindError(ValueError):
    """The instruction's operands or modifiers are outside what its shape handles."""


@dataclasses.dataclass(frozen=True)
class Op:
    fn: Callable
    dst: str
    srcs: tuple
    shape: str = "plain"  # plain, carry_out, carry_io, cmp, mad64, readlane, cndmask
    high16: str = ""  # "preserve": keeps the other half on every arch
    modifiers: tuple = ()  # modifier names the fn takes as keyword arguments (bitop3)
    clamped: Callable | None = None  # the fn with clamp on its integer result: the saturating form


def _ops(inst):
    return [O.parse(t) for t in inst.operands]


def _op_sel(inst, n):
    text = inst.modifier("op_sel")
    if not text:
        return [0] * n
    bits = [int(b) for b in text.strip("[]").split(",")]
    return bits + [0] * (n - len(bits))


def _readers(inst, ctx, srcs, types):
    """Readers of the source operands, with op_sel halves and SDWA selects."""
    sel = _op_sel(inst, len(types) + 1)
    sdwa = inst.mnemonic.endswith("_sdwa")
    out = []
    for i, (op, ty) in enumerate(zip(srcs, types)):
        if ty == "mask":
            out.append(_mask_reader(op, ctx))
        elif ty == "lane":
            out.append(lambda w: w.lane_ids)
        else:
            sdwa_sel = inst.modifier(f"src{i}_sel", "DWORD") if sdwa else None
            high = bool(sel[i]) and O.BITS[ty] == 16 and not op.half
            out.append(O.vector_reader(op, ty, high=high, sdwa=sdwa_sel, apertures=ctx.apertures))
    return out


def _mask_reader(op, ctx):
    if op.kind == "const":
        bits = O.constant_bits(op, "u64")
        arr = state.mask_to_bools(bits & ((1 << ctx.lanes) - 1), ctx.lanes)
        return lambda w: arr
    i = op.index
    return lambda w: state.mask_to_bools(w.mask(i), w.lanes)


def _writer(inst, ctx, dst, op):
    sel = _op_sel(inst, len(op.srcs) + 1)
    sdwa = None
    if inst.mnemonic.endswith("_sdwa"):
        sdwa = (inst.modifier("dst_sel", "DWORD"), inst.modifier("dst_unused", "UNUSED_PAD"))
    high16 = op.high16 or ctx.high16
    if O.BITS.get(op.dst) == 16 and sel[len(op.srcs)] and not dst.half:
        high16 = "high"
    return O.vector_writer(dst, op.dst, high16=high16 or None, sdwa=sdwa)


def _output_modifiers(inst, op, fn):
    """clamp and omod (mul:2, mul:4, div:2) of a float result."""
    clamp = inst.modifier("clamp")
    scale = {"mul:2": 2.0, "mul:4": 4.0, "div:2": 0.5}
    factor = None
    for key in ("mul", "div"):
        if inst.modifier(key):
            factor = scale[f"{key}:{inst.modifier(key)}"]
    if not clamp and factor is None:
        return fn
    if op.dst not in O.FLOATS:
        if clamp and factor is None and op.clamped is not None:
            return op.clamped
        raise BindError(f"clamp/omod on an integer result ({op.dst})")

    def modified(*args):
        x = fn(*args)
        if factor is not None:
            x = x * x.dtype.type(factor)
        return np.clip(x, 0, 1) if clamp else x

    return modified


def bind_plain(op):
    def binder(inst, ctx):
        ops = _ops(inst)
        n = len([t for t in op.srcs if t != "lane"])  # the lane id is no operand
        if op.shape == "cndmask" and len(ops) == n:  # VOPD's v_dual_cndmask: the mask is vcc_lo
            ops.append(O.parse("vcc_lo"))
        if len(ops) != n + 1:
            raise BindError(f"expected {n + 1} operands, got {len(ops)}")
        dst, srcs = ops[0], ops[1:] + [None] * (len(op.srcs) - n)
        reads = _readers(inst, ctx, srcs, op.srcs)
        write = _writer(inst, ctx, dst, op)
        if inst.mnemonic.endswith("_dpp"):
            reads[0], write = _dpp(inst, ctx, dst, op, reads[0], write)
        kw = {m: int(inst.modifier(m), 0) for m in op.modifiers}
        fn = _output_modifiers(inst, op, op.fn)
        if kw:
            base = fn
            fn = lambda *a: base(*a, **kw)  # noqa: E731
        return _step(fn, reads, write)

    binder.dpp = True  # program.bind lets DPP forms through to this shape only
    return binder


def _dpp(inst, ctx, dst, op, read, write):
    """src0's reader and the writer of a DPP instruction (emu/dpp.py): 32-bit results only, so that a lane
    left unwritten can be given back its value."""
    if O.BITS.get(op.dst) != 32 or op.shape != "plain":
        raise BindError(f"expected DPP on a 32-bit result of a plain VALU op, got {op.dst} ({op.shape})")
    try:
        permuted, keep = dpp.bind(inst, ctx.lanes, read)
    except dpp.DppError as e:
        raise BindError(str(e)) from None
    if keep is None:
        return permuted, write
    old = O.vector_reader(dst, op.dst)
    return permuted, lambda w, x: write(w, np.where(keep(w), old(w), x))


def _step(fn, reads, write):
    if len(reads) == 1:
        (r0,) = reads
        return lambda w: write(w, fn(r0(w)))
    if len(reads) == 2:
        r0, r1 = reads
        return lambda w: write(w, fn(r0(w), r1(w)))
    if len(reads) == 3:
        r0, r1, r2 = reads
        return lambda w: write(w, fn(r0(w), r1(w), r2(w)))
    return lambda w: write(w, fn(*[r(w) for r in reads]))


def bind_carry(op):
    """dst, sdst (carry out), src0, src1[, carry in]."""

    def binder(inst, ctx):
        ops = _ops(inst)
        n = len(op.srcs)
        if len(ops) != n + 2:
            raise BindError(f"expected {n + 2} operands, got {len(ops)}")
        dst, sdst, srcs = ops[0], ops[1], ops[2:]
        reads = _readers(inst, ctx, srcs, op.srcs)
        write = _writer(inst, ctx, dst, op)
        write_carry = _mask_writer(sdst)
        fn = op.fn

        def step(w):
            value, carry = fn(*[r(w) for r in reads])
            write(w, value)
            write_carry(w, carry)

        return step

    return binder


def _mask_writer(op):
    """Store a per-lane bool as a lane mask: active lanes' bits, 0 elsewhere."""
    if op.kind != "s":
        raise BindError(f"expected an SGPR lane mask destination, got {op.text!r}")
    i = op.index

    def write(w, bools):
        bools = np.logical_and(bools, w.exec)  # broadcasts a scalar result
        w.write_mask(i, state.bools_to_mask(bools))

    return write


def bind_cmp(op, exec_write=False):
    """[sdst,] src0, src1: a compare writing a lane mask (v_cmpx: EXEC, and the sdst gfx9 prints)."""

    def binder(inst, ctx):
        ops = _ops(inst)
        if len(ops) == 2 and exec_write:
            sdst, srcs = None, ops
        elif len(ops) == 3:
            sdst, srcs = ops[0], ops[1:]
        else:
            raise BindError(f"expected a mask destination and two sources, got {len(ops)} operands")
        r0, r1 = _readers(inst, ctx, srcs, op.srcs)
        write = _mask_writer(sdst) if sdst is not None else None
        fn = op.fn

        def step(w):
            result = np.logical_and(fn(r0(w), r1(w)), w.exec)
            if write is not None:
                write(w, result)
            if exec_write:
                w.set_exec(state.bools_to_mask(result))

        return step

    return binder


def bind_readfirstlane(inst, ctx):
    dst, src = _ops(inst)
    read = O.vector_reader(src, "u32", apertures=ctx.apertures)
    write = O.scalar_writer(dst, 32)

    def step(w):
        x = np.broadcast_to(read(w), (w.lanes,))
        lanes = np.flatnonzero(w.exec)
        write(w, int(x[lanes[0] if lanes.size else 0]))

    return step


def bind_mad64(op):
    """v_mad_u64_u32 dst64, sdst, src0, src1, src2(64): the carry out of the 64-bit add."""
    return bind_carry(op)


# -- the operations --------------------------------------------------------------------


_SHIFT = U32(31)  # made once: a numpy scalar costs as much to build as the AND


def _sh(x):
    return x & _SHIFT


def _bfe_u(x, off, width):
    if off.size == 1 and width.size == 1:  # constant or scalar offset and width (nearly always): two scalar ops
        o, n = int(off.reshape(-1)[0]) & 31, int(width.reshape(-1)[0]) & 31
        return (x >> U32(o)) & U32((1 << n) - 1)
    off, width = _sh(off), _sh(width)
    return (x >> off) & ((U32(1) << width) - U32(1))  # width < 32: the mask fits 32 bits


def _bfe_i(x, off, width):
    if off.size == 1 and width.size == 1:  # as in _bfe_u: a few ops on the lanes instead of a dozen
        o, n = int(off.reshape(-1)[0]) & 31, int(width.reshape(-1)[0]) & 31
        if n == 0:
            return x & U32(0)
        if o + n > 32:  # the field runs past bit 31: its top bit (the sign) is a 0 shifted in
            return x >> U32(o)
        return ((x.view(np.int32) << np.int32(32 - o - n)) >> np.int32(32 - n)).view(U32)
    width = _sh(width)
    field = _bfe_u(x, off, width).astype(np.int64)
    sign = (field >> np.maximum(width.astype(np.int64) - 1, 0)) & 1
    out = np.where((width > 0) & (sign == 1), field - (np.int64(1) << width.astype(np.int64)), field)
    return np.where(width == 0, 0, out).astype(np.int64).astype(U32)


# v_perm_b32's byte selectors 0..13 as indices into a lane's 14-byte table: bytes 0-7 of {src0, src1} (src1
# low), the sign of bytes 1, 3, 5 and 7 spread to a byte (8-11), 0x00 (12) and 0xFF (13, also for 14-255).
_PERM_SIGNS = np.array([1, 3, 5, 7])


def _perm(s0, s1, sel):
    shape = np.broadcast_shapes(s0.shape, s1.shape, sel.shape)
    both = np.empty((shape[0], 2), U32)
    both[:, 0], both[:, 1] = s1, s0
    data = both.view(np.uint8)  # (lanes, 8), little-endian: byte k of {src0, src1}
    table = np.empty((shape[0], 14), np.uint8)
    table[:, :8] = data
    table[:, 8:12] = (data[:, _PERM_SIGNS] >> 7) * np.uint8(0xFF)
    table[:, 12], table[:, 13] = 0, 0xFF
    picks = np.minimum(np.broadcast_to(sel, shape).astype(U32).reshape(-1, 1).view(np.uint8), 13)
    return np.take_along_axis(table, picks.astype(np.intp), axis=1).view(U32).reshape(shape)


def _bitop3(a, b, c, bitop3):
    out = np.zeros(np.broadcast_shapes(a.shape, b.shape, c.shape), a.dtype)
    for index in range(8):
        if bitop3 >> index & 1:
            out |= (a if index & 4 else ~a) & (b if index & 2 else ~b) & (c if index & 1 else ~c)
    return out


def _mbcnt(first):
    """v_mbcnt_lo/hi: add the set bits of the mask that belong to lanes below
    this one, among lanes first..first+31."""

    def fn(mask, add, lane):
        shift = np.clip(lane.astype(np.int64) - first, 0, 32).astype(U64)
        below = ((U64(1) << shift) - U64(1)).astype(U32)
        return np.bitwise_count(mask & below).astype(U32) + add

    return fn


def _add_co(a, b):
    s = a.astype(U64) + b.astype(U64)
    return s.astype(U32), s > U64(0xFFFFFFFF)


def _sub_co(a, b):
    return a - b, b > a


def _addc(a, b, c):
    s = a.astype(U64) + b.astype(U64) + c.astype(U64)
    return s.astype(U32), s > U64(0xFFFFFFFF)


def _subb(a, b, c):
    d = a.astype(np.int64) - b.astype(np.int64) - c.astype(np.int64)
    return d.astype(U32), d < 0


def _mad_u64_u32(a, b, c):
    p = a.astype(U64) * b.astype(U64)
    s = p + c
    return s, s < p


def _mad_i64_i32(a, b, c):
    p = a.astype(np.int64) * b.astype(np.int64)
    s = (p.view(U64) + c.view(U64)).view(np.int64)
    return s, np.zeros(s.shape, bool)


def _i24(x):
    return ((x.view(I32) << 8) >> 8).astype(np.int64)


def _fma(a, b, c):
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(
        a.dtype if a.dtype != np.float16 else np.float32
    )


def _med3(a, b, c):
    return np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))


def _f32(x):
    return x.astype(np.float32)


def _to_f16(x):
    with np.errstate(over="ignore"):  # overflow is inf, as the ISA rounds
        return x.astype(np.float16)


def _pack16(lo, hi):
    return lo.astype(np.uint16).astype(U32) | (hi.astype(np.uint16).astype(U32) << U32(16))


# clamp on an unsigned add or subtract saturates to 0..2**32 - 1 (LLVM selects it for uadd.sat and usub.sat,
# as in max(x - y, 0) of unsigned values).
def _add_sat(a, b):
    total = a + b
    return np.where(total < a, U32(0xFFFFFFFF), total)


def _sub_sat(a, b):
    return np.where(a >= b, a - b, U32(0))


def _cvt_f32_u32(x):
    return x.astype(np.float32)


def _cvt_int(dtype, lo, hi):
    """f32 -> int of `dtype`, rounding toward zero, saturating, NaN -> 0 (the ISA's V_CVT_*_F32)."""

    def fn(x):
        x = np.nan_to_num(x.astype(np.float64), nan=0.0)
        return np.clip(np.trunc(x), lo, hi).astype(dtype)

    return fn


PLAIN = {
    # 32-bit integer
    "v_mov_b32": Op(lambda a: a, "b32", ("b32",)),
    "v_mov_b64": Op(lambda a: a, "u64", ("u64",)),
    "v_accvgpr_write_b32": Op(lambda a: a, "b32", ("b32",)),
    "v_accvgpr_read_b32": Op(lambda a: a, "b32", ("b32",)),
    "v_accvgpr_mov_b32": Op(lambda a: a, "b32", ("b32",)),
    "v_add_u32": Op(lambda a, b: a + b, "u32", ("u32", "u32"), clamped=_add_sat),
    "v_add_nc_u32": Op(lambda a, b: a + b, "u32", ("u32", "u32"), clamped=_add_sat),
    "v_sub_u32": Op(lambda a, b: a - b, "u32", ("u32", "u32"), clamped=_sub_sat),
    "v_sub_nc_u32": Op(lambda a, b: a - b, "u32", ("u32", "u32"), clamped=_sub_sat),
    "v_subrev_u32": Op(lambda a, b: b - a, "u32", ("u32", "u32"), clamped=lambda a, b: _sub_sat(b, a)),
    "v_subrev_nc_u32": Op(lambda a, b: b - a, "u32", ("u32", "u32"), clamped=lambda a, b: _sub_sat(b, a)),
    "v_and_b32": Op(lambda a, b: a & b, "u32", ("u32", "u32")),
    "v_or_b32": Op(lambda a, b: a | b, "u32", ("u32", "u32")),
    "v_xor_b32": Op(lambda a, b: a ^ b, "u32", ("u32", "u32")),
    "v_not_b32": Op(lambda a: ~a, "u32", ("u32",)),
    "v_bfrev_b32": Op(lambda a: _bfrev(a), "u32", ("u32",)),
    "v_lshlrev_b32": Op(lambda a, b: b << _sh(a), "u32", ("u32", "u32")),
    "v_lshrrev_b32": Op(lambda a, b: b >> _sh(a), "u32", ("u32", "u32")),
    "v_ashrrev_i32": Op(lambda a, b: b >> _sh(a).astype(I32), "i32", ("u32", "i32")),
    "v_lshlrev_b64": Op(lambda a, b: b << (a & U32(63)).astype(U64), "u64", ("u32", "u64")),
    "v_lshrrev_b64": Op(lambda a, b: b >> (a & U32(63)).astype(U64), "u64", ("u32", "u64")),
    "v_ashrrev_i64": Op(lambda a, b: b >> (a & U32(63)).astype(np.int64), "i64", ("u32", "i64")),
    "v_mul_lo_u32": Op(lambda a, b: a * b, "u32", ("u32", "u32")),
    "v_mul_hi_u32": Op(lambda a, b: ((a.astype(U64) * b.astype(U64)) >> U64(32)).astype(U32), "u32", ("u32", "u32")),
    "v_mul_hi_i32": Op(
        lambda a, b: ((a.astype(np.int64) * b.astype(np.int64)) >> 32).astype(U32), "u32", ("i32", "i32")
    ),
    "v_mul_u32_u24": Op(lambda a, b: (a & _M24) * (b & _M24), "u32", ("u32", "u32")),
    "v_mul_hi_u32_u24": Op(
        lambda a, b: (((a & _M24).astype(U64) * (b & _M24).astype(U64)) >> U64(32)).astype(U32), "u32", ("u32", "u32")
    ),
    "v_mul_i32_i24": Op(lambda a, b: (_i24(a) * _i24(b)).astype(U32), "u32", ("u32", "u32")),
    "v_mul_hi_i32_i24": Op(lambda a, b: ((_i24(a) * _i24(b)) >> 32).astype(U32), "u32", ("u32", "u32")),
    "v_mad_u32_u24": Op(lambda a, b, c: (a & _M24) * (b & _M24) + c, "u32", ("u32", "u32", "u32")),
    "v_mad_i32_i24": Op(
        lambda a, b, c: (_i24(a) * _i24(b) + c.astype(np.int64)).astype(U32), "u32", ("u32", "u32", "u32")
    ),
    "v_add3_u32": Op(lambda a, b, c: a + b + c, "u32", ("u32", "u32", "u32")),
    "v_add_lshl_u32": Op(lambda a, b, c: (a + b) << _sh(c), "u32", ("u32", "u32", "u32")),
    "v_lshl_add_u32": Op(lambda a, b, c: (a << _sh(b)) + c, "u32", ("u32", "u32", "u32")),
    "v_lshl_or_b32": Op(lambda a, b, c: (a << _sh(b)) | c, "u32", ("u32", "u32", "u32")),
    "v_and_or_b32": Op(lambda a, b, c: (a & b) | c, "u32", ("u32", "u32", "u32")),
    "v_or3_b32": Op(lambda a, b, c: a | b | c, "u32", ("u32", "u32", "u32")),
    "v_xor3_b32": Op(lambda a, b, c: a ^ b ^ c, "u32", ("u32", "u32", "u32")),
    "v_xad_u32": Op(lambda a, b, c: (a ^ b) + c, "u32", ("u32", "u32", "u32")),
    "v_lshl_add_u64": Op(lambda a, b, c: (a << (b & U32(7)).astype(U64)) + c, "u64", ("u64", "u32", "u64")),
    "v_bfe_u32": Op(_bfe_u, "u32", ("u32", "u32", "u32")),
    "v_bfe_i32": Op(_bfe_i, "u32", ("u32", "u32", "u32")),
    "v_bfi_b32": Op(lambda a, b, c: (a & b) | (~a & c), "u32", ("u32", "u32", "u32")),
    "v_alignbit_b32": Op(
        lambda a, b, c: (((a.astype(U64) << U64(32)) | b.astype(U64)) >> _sh(c).astype(U64)).astype(U32),
        "u32",
        ("u32", "u32", "u32"),
    ),
    "v_alignbyte_b32": Op(
        lambda a, b, c: (((a.astype(U64) << U64(32)) | b.astype(U64)) >> (U64(8) * (c & U32(3)).astype(U64))).astype(
            U32
        ),
        "u32",
        ("u32", "u32", "u32"),
    ),
    "v_perm_b32": Op(_perm, "u32", ("u32", "u32", "u32")),
    "v_bitop3_b32": Op(_bitop3, "u32", ("u32", "u32", "u32"), modifiers=("bitop3",)),
    "v_bitop3_b16": Op(_bitop3, "u16", ("u16", "u16", "u16"), modifiers=("bitop3",)),
    "v_max_i32": Op(np.maximum, "i32", ("i32", "i32")),
    "v_min_i32": Op(np.minimum, "i32", ("i32", "i32")),
    "v_max_u32": Op(np.maximum, "u32", ("u32", "u32")),
    "v_min_u32": Op(np.minimum, "u32", ("u32", "u32")),
    "v_med3_i32": Op(_med3, "i32", ("i32", "i32", "i32")),
    "v_med3_u32": Op(_med3, "u32", ("u32", "u32", "u32")),
    "v_max3_i32": Op(lambda a, b, c: np.maximum(np.maximum(a, b), c), "i32", ("i32", "i32", "i32")),
    "v_min3_i32": Op(lambda a, b, c: np.minimum(np.minimum(a, b), c), "i32", ("i32", "i32", "i32")),
    "v_max3_u32": Op(lambda a, b, c: np.maximum(np.maximum(a, b), c), "u32", ("u32", "u32", "u32")),
    "v_min3_u32": Op(lambda a, b, c: np.minimum(np.minimum(a, b), c), "u32", ("u32", "u32", "u32")),
    "v_mbcnt_lo_u32_b32": Op(_mbcnt(0), "u32", ("u32", "u32", "lane")),
    "v_mbcnt_hi_u32_b32": Op(_mbcnt(32), "u32", ("u32", "u32", "lane")),
    "v_cndmask_b32": Op(lambda a, b, m: np.where(m, b, a), "b32", ("b32", "b32", "mask"), shape="cndmask"),
    "v_cvt_u32_u16": Op(lambda a: a.astype(U32), "u32", ("u16",)),
    "v_cvt_i32_i16": Op(lambda a: a.astype(I32), "i32", ("i16",)),
    "v_cvt_f32_u32": Op(_cvt_f32_u32, "f32", ("u32",)),
    "v_cvt_f32_i32": Op(lambda a: a.astype(np.float32), "f32", ("i32",)),
    "v_cvt_u32_f32": Op(_cvt_int(U32, 0, 0xFFFFFFFF), "u32", ("f32",)),
    "v_cvt_i32_f32": Op(_cvt_int(I32, -(1 << 31), (1 << 31) - 1), "i32", ("f32",)),
    "v_cvt_f32_ubyte0": Op(lambda a: (a & U32(0xFF)).astype(np.float32), "f32", ("u32",)),
    # 16-bit integer
    "v_mov_b16": Op(lambda a: a, "b16", ("b16",)),
    "v_add_u16": Op(lambda a, b: a + b, "u16", ("u16", "u16")),
    "v_add_nc_u16": Op(lambda a, b: a + b, "u16", ("u16", "u16")),
    "v_sub_u16": Op(lambda a, b: a - b, "u16", ("u16", "u16")),
    "v_sub_nc_u16": Op(lambda a, b: a - b, "u16", ("u16", "u16")),
    "v_subrev_u16": Op(lambda a, b: b - a, "u16", ("u16", "u16")),
    "v_mul_lo_u16": Op(lambda a, b: a * b, "u16", ("u16", "u16")),
    "v_lshlrev_b16": Op(lambda a, b: b << (a & np.uint16(15)), "u16", ("u16", "u16")),
    "v_lshrrev_b16": Op(lambda a, b: b >> (a & np.uint16(15)), "u16", ("u16", "u16")),
    "v_ashrrev_i16": Op(lambda a, b: b >> (a & np.uint16(15)).astype(np.int16), "i16", ("u16", "i16")),
    "v_and_b16": Op(lambda a, b: a & b, "u16", ("u16", "u16")),
    "v_or_b16": Op(lambda a, b: a | b, "u16", ("u16", "u16")),
    "v_xor_b16": Op(lambda a, b: a ^ b, "u16", ("u16", "u16")),
    "v_not_b16": Op(lambda a: ~a, "u16", ("u16",)),
    "v_max_u16": Op(np.maximum, "u16", ("u16", "u16")),
    "v_min_u16": Op(np.minimum, "u16", ("u16", "u16")),
    "v_max_i16": Op(np.maximum, "i16", ("i16", "i16")),
    "v_min_i16": Op(np.minimum, "i16", ("i16", "i16")),
    "v_mad_u16": Op(lambda a, b, c: a * b + c, "u16", ("u16", "u16", "u16")),
    "v_mad_legacy_u16": Op(lambda a, b, c: a * b + c, "u16", ("u16", "u16", "u16")),
    "v_mad_i16": Op(lambda a, b, c: a * b + c, "i16", ("i16", "i16", "i16")),
    "v_cndmask_b16": Op(lambda a, b, m: np.where(m, b, a), "b16", ("b16", "b16", "mask"), shape="cndmask"),
    # f32
    "v_add_f32": Op(lambda a, b: a + b, "f32", ("f32", "f32")),
    "v_sub_f32": Op(lambda a, b: a - b, "f32", ("f32", "f32")),
    "v_subrev_f32": Op(lambda a, b: b - a, "f32", ("f32", "f32")),
    "v_mul_f32": Op(lambda a, b: a * b, "f32", ("f32", "f32")),
    "v_fma_f32": Op(_fma, "f32", ("f32", "f32", "f32")),
    "v_max_f32": Op(np.fmax, "f32", ("f32", "f32")),
    "v_min_f32": Op(np.fmin, "f32", ("f32", "f32")),
    "v_max_num_f32": Op(np.fmax, "f32", ("f32", "f32")),
    "v_min_num_f32": Op(np.fmin, "f32", ("f32", "f32")),
    "v_max3_f32": Op(lambda a, b, c: np.fmax(np.fmax(a, b), c), "f32", ("f32", "f32", "f32")),
    "v_min3_f32": Op(lambda a, b, c: np.fmin(np.fmin(a, b), c), "f32", ("f32", "f32", "f32")),
    "v_med3_f32": Op(_med3, "f32", ("f32", "f32", "f32")),
    "v_max3_num_f32": Op(lambda a, b, c: np.fmax(np.fmax(a, b), c), "f32", ("f32", "f32", "f32")),
    # v_fmamk_f32 vdst, src0, K, vsrc1: src0 * K + vsrc1, the literal K in the middle.
    "v_fmamk_f32": Op(_fma, "f32", ("f32", "f32", "f32")),
    # v_fmaak_f32 vdst, src0, vsrc1, K: src0 * vsrc1 + K, the literal K last.
    "v_fmaak_f32": Op(_fma, "f32", ("f32", "f32", "f32")),
    # gfx12's IEEE-754 2019 minimumNumber/maximumNumber forms: a NaN operand is ignored.
    "v_med3_num_f32": Op(lambda a, b, c: np.fmax(np.fmin(a, b), np.fmin(np.fmax(a, b), c)), "f32", ("f32",) * 3),
    "v_maxmin_num_f32": Op(lambda a, b, c: np.fmin(np.fmax(a, b), c), "f32", ("f32", "f32", "f32")),
    "v_minmax_num_f32": Op(lambda a, b, c: np.fmax(np.fmin(a, b), c), "f32", ("f32", "f32", "f32")),
    "v_rndne_f32": Op(np.rint, "f32", ("f32",)),  # to nearest, ties to even
    "v_ldexp_f32": Op(lambda a, b: np.ldexp(a, b).astype(np.float32), "f32", ("f32", "i32")),
    "v_exp_f32": Op(lambda a: np.exp2(a), "f32", ("f32",)),
    "v_log_f32": Op(lambda a: np.log2(a), "f32", ("f32",)),
    "v_rcp_f32": Op(lambda a: np.float32(1) / a, "f32", ("f32",)),
    "v_sqrt_f32": Op(np.sqrt, "f32", ("f32",)),
    "v_rsq_f32": Op(lambda a: np.float32(1) / np.sqrt(a), "f32", ("f32",)),
    # f16
    "v_add_f16": Op(lambda a, b: a + b, "f16", ("f16", "f16")),
    "v_sub_f16": Op(lambda a, b: a - b, "f16", ("f16", "f16")),
    "v_mul_f16": Op(lambda a, b: a * b, "f16", ("f16", "f16")),
    "v_max_f16": Op(np.fmax, "f16", ("f16", "f16")),
    "v_min_f16": Op(np.fmin, "f16", ("f16", "f16")),
    "v_fma_f16": Op(lambda a, b, c: _fma(a, b, c).astype(np.float16), "f16", ("f16", "f16", "f16")),
    # conversions (round to nearest even, as the descriptor's round mode asks)
    "v_cvt_f16_f32": Op(_to_f16, "f16", ("f32",)),
    "v_cvt_f32_f16": Op(_f32, "f32", ("f16",)),
    "v_cvt_f32_bf16": Op(_f32, "f32", ("bf16",)),
    "v_cvt_pk_f16_f32": Op(
        lambda a, b: _pack16(_to_f16(a).view(np.uint16), _to_f16(b).view(np.uint16)), "u32", ("f32", "f32")
    ),
    "v_cvt_pk_bf16_f32": Op(lambda a, b: _pack16(O.f32_to_bf16(a), O.f32_to_bf16(b)), "u32", ("f32", "f32")),
    "v_pack_b32_f16": Op(lambda a, b: _pack16(a.view(np.uint16), b.view(np.uint16)), "u32", ("f16", "f16")),
}


def _bfrev(a):
    x = a.astype(U32)
    out = np.zeros_like(x)
    for i in range(32):
        out |= ((x >> U32(i)) & U32(1)) << U32(31 - i)
    return out


CARRY = {
    "v_add_co_u32": Op(_add_co, "u32", ("u32", "u32")),
    "v_sub_co_u32": Op(_sub_co, "u32", ("u32", "u32")),
    "v_subrev_co_u32": Op(lambda a, b: _sub_co(b, a), "u32", ("u32", "u32")),
    "v_addc_co_u32": Op(_addc, "u32", ("u32", "u32", "mask")),
    "v_add_co_ci_u32": Op(_addc, "u32", ("u32", "u32", "mask")),
    "v_subb_co_u32": Op(_subb, "u32", ("u32", "u32", "mask")),
    "v_sub_co_ci_u32": Op(_subb, "u32", ("u32", "u32", "mask")),
    "v_subbrev_co_u32": Op(lambda a, b, c: _subb(b, a, c), "u32", ("u32", "u32", "mask")),
    "v_subrev_co_ci_u32": Op(lambda a, b, c: _subb(b, a, c), "u32", ("u32", "u32", "mask")),
    "v_mad_u64_u32": Op(_mad_u64_u32, "u64", ("u32", "u32", "u64")),
    "v_mad_co_u64_u32": Op(_mad_u64_u32, "u64", ("u32", "u32", "u64")),
    "v_mad_i64_i32": Op(_mad_i64_i32, "i64", ("i32", "i32", "i64")),
    "v_mad_co_i64_i32": Op(_mad_i64_i32, "i64", ("i32", "i32", "i64")),
}

# Compares: op -> predicate on the typed sources. Float predicates follow the
# ISA: the ordered ones are false on NaN, the "n" ones are their negations.
_INT_CMP = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lg": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "f": lambda a, b: np.zeros(np.broadcast_shapes(a.shape, b.shape), bool),
    "t": lambda a, b: np.ones(np.broadcast_shapes(a.shape, b.shape), bool),
}
_FLOAT_CMP = {
    "eq": np.equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "lg": lambda a, b: np.less(a, b) | np.greater(a, b),
    "o": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    "u": lambda a, b: np.isnan(a) | np.isnan(b),
    "neq": lambda a, b: ~np.equal(a, b),
    "nlt": lambda a, b: ~np.less(a, b),
    "nle": lambda a, b: ~np.less_equal(a, b),
    "ngt": lambda a, b: ~np.greater(a, b),
    "nge": lambda a, b: ~np.greater_equal(a, b),
    "nlg": lambda a, b: ~(np.less(a, b) | np.greater(a, b)),
    "f": _INT_CMP["f"],
    "t": _INT_CMP["t"],
}
_CMP_TYPES = {
    "i32": _INT_CMP,
    "u32": _INT_CMP,
    "i16": _INT_CMP,
    "u16": _INT_CMP,
    "i64": _INT_CMP,
    "u64": _INT_CMP,
    "f32": _FLOAT_CMP,
    "f16": _FLOAT_CMP,
    "f64": _FLOAT_CMP,
}
COMPARES = {
    f"v_{kind}_{name}_{ty}": bind_cmp(Op(fn, "", (ty, ty), shape="cmp"), exec_write=kind == "cmpx")
    for ty, preds in _CMP_TYPES.items()
    for name, fn in preds.items()
    for kind in ("cmp", "cmpx")
}


def _mix_binder(result):
    """v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16: each source is f32, or
    (op_sel_hi set) the f16 in the half op_sel picks; D = A * B + C in f32."""

    def binder(inst, ctx):
        ops = _ops(inst)
        if len(ops) != 4:
            raise BindError(f"expected 4 operands, got {len(ops)}")
        dst, srcs = ops[0], ops[1:]
        sel, sel_hi = _op_sel(inst, 4), _list(inst.modifier("op_sel_hi"), 3)
        reads = []
        for i, op in enumerate(srcs):
            if sel_hi[i]:
                half = O.vector_reader(_no_mods(op), "f16", high=bool(sel[i]), apertures=ctx.apertures)
                reads.append(_with_mods(lambda w, h=half: h(w).astype(np.float32), op))
            else:
                reads.append(O.vector_reader(op, "f32", apertures=ctx.apertures))
        clamp = bool(inst.modifier("clamp"))
        if result == "f32":
            write = O.vector_writer(dst, "f32")
        else:
            write = O.vector_writer(dst, "f16", high16="high" if result == "hi" else "preserve")
        r0, r1, r2 = reads

        def step(w):
            x = _fma(r0(w), r1(w), r2(w))
            if clamp:
                x = np.clip(x, 0, 1)
            write(w, x if result == "f32" else x.astype(np.float16))

        return step

    return binder


def _list(text, n, default=0):
    if not text:
        return [default] * n
    return [int(b) for b in text.strip("[]").split(",")]


def _no_mods(op):
    return dataclasses.replace(op, neg=False, abs=False)


def _with_mods(read, op):
    if op.abs and op.neg:
        return lambda w: -np.abs(read(w))
    if op.abs:
        return lambda w: np.abs(read(w))
    if op.neg:
        return lambda w: -read(w)
    return read


def _packed_binder(fn, half_type, n, mov=False):
    """v_pk_*: two results from the low and high halves of each source; op_sel
    picks the half for the low result, op_sel_hi (default all set) for the
    high one; neg_lo/neg_hi negate a float source of that result. mov:
    v_pk_mov_b32, whose low result is src0's half op_sel[0] picks and whose
    high result is src1's half op_sel[1] picks (op_sel_hi plays no part)."""
    bits = O.BITS[half_type]

    def binder(inst, ctx):
        ops = _ops(inst)
        if len(ops) != n + 1:
            raise BindError(f"expected {n + 1} operands, got {len(ops)}")
        dst, srcs = ops[0], ops[1:]
        sel, sel_hi = _list(inst.modifier("op_sel"), n), _list(inst.modifier("op_sel_hi"), n, 1)
        neg_lo, neg_hi = _list(inst.modifier("neg_lo"), n), _list(inst.modifier("neg_hi"), n)
        whole = [O.vector_reader(_no_mods(op), "u64" if bits == 32 else "u32", apertures=ctx.apertures) for op in srcs]
        dtype = O.DTYPES[half_type]
        wide = np.uint64 if bits == 32 else np.uint32
        if any(op.kind == "const" for op in srcs) and bits == 32:
            # A 32-bit constant feeds both halves of a packed f32 op.
            whole = [_replicated(op, ctx) if op.kind == "const" else r for op, r in zip(srcs, whole)]
        write = O.vector_writer(dst, "u64" if bits == 32 else "u32")

        def half(x, high):
            return ((x >> wide(bits)) if high else x).astype(O.UNSIGNED[bits]).view(dtype)

        def step(w):
            xs = [r(w) for r in whole]
            lo = [half(x, sel[i]) for i, x in enumerate(xs)]
            hi = [half(x, sel_hi[i]) for i, x in enumerate(xs)]
            lo = [-v if neg_lo[i] else v for i, v in enumerate(lo)]
            hi = [-v if neg_hi[i] else v for i, v in enumerate(hi)]
            rl = np.asarray(fn(*lo)).astype(dtype).view(O.UNSIGNED[bits]).astype(wide)
            rh = np.asarray(lo[1] if mov else fn(*hi)).astype(dtype).view(O.UNSIGNED[bits]).astype(wide)
            write(w, rl | (rh << wide(bits)))

        return step

    return binder


def _replicated(op, ctx):
    bits = O.constant_bits(op, "f32")
    arr = np.array([bits | bits << 32], np.uint64)
    return lambda w: arr


PACKED = {
    "v_pk_add_f32": _packed_binder(lambda a, b: a + b, "f32", 2),
    "v_pk_mul_f32": _packed_binder(lambda a, b: a * b, "f32", 2),
    "v_pk_fma_f32": _packed_binder(_fma, "f32", 3),
    "v_pk_mov_b32": _packed_binder(lambda a, b: a, "f32", 2, mov=True),
    "v_pk_add_f16": _packed_binder(lambda a, b: a + b, "f16", 2),
    "v_pk_mul_f16": _packed_binder(lambda a, b: a * b, "f16", 2),
    "v_pk_fma_f16": _packed_binder(lambda a, b, c: _fma(a, b, c).astype(np.float16), "f16", 3),
    "v_pk_max_f16": _packed_binder(np.fmax, "f16", 2),
    "v_pk_add_u16": _packed_binder(lambda a, b: a + b, "u16", 2),
    "v_pk_add_i16": _packed_binder(lambda a, b: a + b, "i16", 2),
    "v_pk_sub_u16": _packed_binder(lambda a, b: a - b, "u16", 2),
    "v_pk_sub_i16": _packed_binder(lambda a, b: a - b, "i16", 2),
    "v_pk_mul_lo_u16": _packed_binder(lambda a, b: a * b, "u16", 2),
    "v_pk_mad_u16": _packed_binder(lambda a, b, c: a * b + c, "u16", 3),
    "v_pk_mad_i16": _packed_binder(lambda a, b, c: a * b + c, "i16", 3),
    "v_pk_lshlrev_b16": _packed_binder(lambda a, b: b << (a & np.uint16(15)), "u16", 2),
    "v_pk_lshrrev_b16": _packed_binder(lambda a, b: b >> (a & np.uint16(15)), "u16", 2),
    "v_pk_ashrrev_i16": _packed_binder(lambda a, b: b >> (a & np.int16(15)), "i16", 2),
    "v_pk_max_u16": _packed_binder(np.maximum, "u16", 2),
    "v_pk_min_u16": _packed_binder(np.minimum, "u16", 2),
    "v_pk_max_i16": _packed_binder(np.maximum, "i16", 2),
    "v_pk_min_i16": _packed_binder(np.minimum, "i16", 2),
}

# gfx9's d16-style ops keep the other half; everything else takes the arch's rule.
_PRESERVE = ("v_fmac_f16", "v_mac_f16")


def _fmac(dtype):
    """v_fmac: D = A * B + D (the destination is the third source)."""

    def binder(inst, ctx):
        ops = _ops(inst)
        if len(ops) != 3:
            raise BindError(f"expected 3 operands, got {len(ops)}")
        dst, a, b = ops
        op = Op(
            _fma if dtype == "f32" else (lambda x, y, z: _fma(x, y, z).astype(np.float16)),
            dtype,
            (dtype,) * 3,
            high16="preserve" if dtype == "f16" else "",
        )
        fake = dataclasses.replace(inst, operands=(*inst.operands, inst.operands[0]))
        return bind_plain(op)(fake, ctx)

    return binder


def bind_permlane32_swap(inst, ctx):
    """v_permlane32_swap_b32 vdst, vsrc (gfx950): lanes 32-63 of vdst and lanes
    0-31 of vsrc trade places (LLVM's llvm.amdgcn.permlane32.swap)."""
    d, s = _ops(inst)
    if d.kind != "v" or s.kind != "v" or ctx.lanes != 64:
        raise BindError("expected two VGPRs in wave64")
    di, si = d.index, s.index

    def step(w):
        if not w.full:
            raise ExecutionError(
                f"v_permlane32_swap_b32 at 0x{inst.address:x} in {ctx.kernel}: a lane swap under a partial EXEC mask"
            )
        upper, lower = w.v[32:, di].copy(), w.v[:32, si].copy()
        w.v[32:, di], w.v[:32, si] = lower, upper

    return step


def bind_permlanex16(inst, ctx):
    """v_permlanex16_b32 vdst, vsrc, sel_lo, sel_hi (gfx12): lane j of each 16-lane row takes vsrc of
    lane ((sel_lo | sel_hi << 32) >> 4j) & 15 of the other row of its 32 (LLVM's llvm.amdgcn.permlanex16)."""
    if inst.modifiers.get("op_sel"):
        raise BindError("expected no op_sel (fetch-inactive or bound-control)")
    d, s, lo, hi = (O.parse(t) for t in inst.operands)
    if d.kind != "v" or s.kind != "v":
        raise BindError("expected VGPR destination and source")
    read_lo, read_hi = O.scalar_reader(lo, 32), O.scalar_reader(hi, 32)
    di, si, lanes = d.index, s.index, ctx.lanes
    i = np.arange(lanes)
    other = i - i % 32 + (i + 16) % 32 - i % 16  # the other row's first lane

    def step(w):
        if not w.full:
            raise ExecutionError(
                f"v_permlanex16_b32 at 0x{inst.address:x} in {ctx.kernel}: a lane exchange under a partial EXEC mask"
            )
        sel = int(read_lo(w)) | int(read_hi(w)) << 32
        picks = np.array([(sel >> (4 * j)) & 15 for j in range(16)])
        w.v[:, di] = w.v[other + picks[i % 16], si]

    return step


SPECIAL = {
    "v_permlanex16_b32": bind_permlanex16,
    "v_permlane32_swap_b32": bind_permlane32_swap,
    "v_readfirstlane_b32": bind_readfirstlane,
    "v_fma_mix_f32": _mix_binder("f32"),
    "v_fma_mixlo_f16": _mix_binder("lo"),
    "v_fma_mixhi_f16": _mix_binder("hi"),
    "v_fmac_f32": _fmac("f32"),
    "v_fmac_f16": _fmac("f16"),
}

register({name: bind_plain(op) for name, op in PLAIN.items()})
register({name: bind_carry(op) for name, op in CARRY.items()})
register(COMPARES)
register(PACKED)
register(SPECIAL)
