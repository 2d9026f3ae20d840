"""Scalar ALU and scalar memory semantics: Python ints, one entry per operation.

An operation returns (result, scc): scc None leaves SCC as it was. Widths are
per operand (32 or 64 bits); results are masked to the destination's width.
SOPK immediates are 16 bits, sign-extended for the i32 forms and
zero-extended for the u32 compares.
"""

import numpy as np

from emu import access, state
from emu import operands as O
from emu.table import register
from emu.valu import BindError

M32, M64 = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF


def _i32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def _i64(x):
    x &= M64
    return x - (1 << 64) if x >> 63 else x


def _nz(x):
    return int(x != 0)


def _add_u(a, b, scc):
    s = a + b
    return s, int(s > M32)


def _addc(a, b, scc):
    s = a + b + scc
    return s, int(s > M32)


def _sub_u(a, b, scc):
    return a - b, int(b > a)


def _subb(a, b, scc):
    return a - b - scc, int(b + scc > a)


def _ovf(result, a, b):
    return int((_i32(a) < 0) == (_i32(b) < 0) and (_i32(result) < 0) != (_i32(a) < 0))


def _add_i(a, b, scc):
    r = (a + b) & M32
    return r, _ovf(r, a, b)


def _sub_i(a, b, scc):
    r = (a - b) & M32
    return r, int((_i32(a) < 0) != (_i32(b) < 0) and (_i32(r) < 0) != (_i32(a) < 0))


def _logic(fn, bits):
    mask = M32 if bits == 32 else M64

    def op(a, b, scc):
        r = fn(a, b) & mask
        return r, _nz(r)

    return op


def _shift(fn, bits):
    mask = M32 if bits == 32 else M64

    def op(a, b, scc):
        r = fn(a, b & (bits - 1)) & mask
        return r, _nz(r)

    return op


def _ashr(bits):
    signed = _i32 if bits == 32 else _i64
    mask = M32 if bits == 32 else M64
    return lambda a, b, scc: ((signed(a) >> (b & (bits - 1))) & mask, _nz((signed(a) >> (b & (bits - 1))) & mask))


def _bfe(bits, signed):
    mask = M32 if bits == 32 else M64

    def op(a, b, scc):
        offset, width = b & (bits - 1), (b >> 16) & 0x7F
        field = (a >> offset) & ((1 << width) - 1) if width else 0
        if signed and width and field >> (width - 1) & 1:
            field -= 1 << width
        r = field & mask
        return r, _nz(r)

    return op


def _lshl_add(n):
    def op(a, b, scc):
        s = ((a << n) & 0x1FFFFFFFF) + b
        return s, int(s > M32)

    return op


def _minmax(fn, signed):
    conv = _i32 if signed else (lambda x: x)

    def op(a, b, scc):
        pick = fn(conv(a), conv(b)) == conv(a)
        return (a if pick else b), int(conv(a) != conv(b) and pick)

    return op


def _bcnt(a, scc):
    r = bin(a).count("1")
    return r, _nz(r)


def _ff1(bits):
    def op(a, scc):
        return ((a & -a).bit_length() - 1 if a else M32), None

    return op


def _flbit(a, scc):
    return (31 - a.bit_length() + 1 if a else M32), None


def _brev(a, scc):
    return int(f"{a & M32:032b}"[::-1], 2), None


def _sext(bits):
    return lambda a, scc: (((a & ((1 << bits) - 1)) ^ (1 << (bits - 1))) - (1 << (bits - 1))) & M32, None


# name -> (destination bits, source bits..., fn)
SOP2 = {
    "s_add_u32": (32, 32, 32, _add_u),
    "s_addc_u32": (32, 32, 32, _addc),
    "s_sub_u32": (32, 32, 32, _sub_u),
    "s_subb_u32": (32, 32, 32, _subb),
    "s_add_i32": (32, 32, 32, _add_i),
    "s_sub_i32": (32, 32, 32, _sub_i),
    "s_add_co_i32": (32, 32, 32, _add_i),
    "s_sub_co_i32": (32, 32, 32, _sub_i),
    "s_add_co_u32": (32, 32, 32, _add_u),
    "s_sub_co_u32": (32, 32, 32, _sub_u),
    "s_add_co_ci_u32": (32, 32, 32, _addc),
    "s_sub_co_ci_u32": (32, 32, 32, _subb),
    "s_add_nc_u64": (64, 64, 64, lambda a, b, scc: (a + b, None)),
    "s_sub_nc_u64": (64, 64, 64, lambda a, b, scc: (a - b, None)),
    "s_mul_i32": (32, 32, 32, lambda a, b, scc: (a * b, None)),
    "s_mul_hi_u32": (32, 32, 32, lambda a, b, scc: ((a * b) >> 32, None)),
    "s_mul_hi_i32": (32, 32, 32, lambda a, b, scc: ((_i32(a) * _i32(b)) >> 32, None)),
    "s_mul_u64": (64, 64, 64, lambda a, b, scc: (a * b, None)),
    "s_lshl1_add_u32": (32, 32, 32, _lshl_add(1)),
    "s_lshl2_add_u32": (32, 32, 32, _lshl_add(2)),
    "s_lshl3_add_u32": (32, 32, 32, _lshl_add(3)),
    "s_lshl4_add_u32": (32, 32, 32, _lshl_add(4)),
    "s_min_i32": (32, 32, 32, _minmax(min, True)),
    "s_max_i32": (32, 32, 32, _minmax(max, True)),
    "s_min_u32": (32, 32, 32, _minmax(min, False)),
    "s_max_u32": (32, 32, 32, _minmax(max, False)),
    "s_cselect_b32": (32, 32, 32, lambda a, b, scc: (a if scc else b, None)),
    "s_cselect_b64": (64, 64, 64, lambda a, b, scc: (a if scc else b, None)),
    "s_bfe_u32": (32, 32, 32, _bfe(32, False)),
    "s_bfe_i32": (32, 32, 32, _bfe(32, True)),
    "s_bfe_u64": (64, 64, 32, _bfe(64, False)),
    "s_bfe_i64": (64, 64, 32, _bfe(64, True)),
    "s_bfm_b32": (32, 32, 32, lambda a, b, scc: (((1 << (a & 31)) - 1) << (b & 31), None)),
    "s_pack_ll_b32_b16": (32, 32, 32, lambda a, b, scc: ((a & 0xFFFF) | (b & 0xFFFF) << 16, None)),
    "s_pack_lh_b32_b16": (32, 32, 32, lambda a, b, scc: ((a & 0xFFFF) | (b & 0xFFFF0000), None)),
    "s_pack_hh_b32_b16": (32, 32, 32, lambda a, b, scc: ((a >> 16) | (b & 0xFFFF0000), None)),
    "s_absdiff_i32": (32, 32, 32, lambda a, b, scc: (abs(_i32(a) - _i32(b)), _nz(abs(_i32(a) - _i32(b)) & M32))),
}
for _width in (32, 64):
    _b = f"b{_width}"
    SOP2.update(
        {
            f"s_and_{_b}": (_width, _width, _width, _logic(lambda a, b: a & b, _width)),
            f"s_or_{_b}": (_width, _width, _width, _logic(lambda a, b: a | b, _width)),
            f"s_xor_{_b}": (_width, _width, _width, _logic(lambda a, b: a ^ b, _width)),
            f"s_andn2_{_b}": (_width, _width, _width, _logic(lambda a, b: a & ~b, _width)),
            f"s_and_not1_{_b}": (_width, _width, _width, _logic(lambda a, b: a & ~b, _width)),
            f"s_orn2_{_b}": (_width, _width, _width, _logic(lambda a, b: a | ~b, _width)),
            f"s_or_not1_{_b}": (_width, _width, _width, _logic(lambda a, b: a | ~b, _width)),
            f"s_nand_{_b}": (_width, _width, _width, _logic(lambda a, b: ~(a & b), _width)),
            f"s_nor_{_b}": (_width, _width, _width, _logic(lambda a, b: ~(a | b), _width)),
            f"s_xnor_{_b}": (_width, _width, _width, _logic(lambda a, b: ~(a ^ b), _width)),
            f"s_lshl_{_b}": (_width, _width, 32, _shift(lambda a, b: a << b, _width)),
            f"s_lshr_{_b}": (_width, _width, 32, _shift(lambda a, b: a >> b, _width)),
        }
    )
SOP2["s_ashr_i32"] = (32, 32, 32, _ashr(32))
SOP2["s_ashr_i64"] = (64, 64, 32, _ashr(64))

SOP1 = {
    "s_mov_b32": (32, 32, lambda a, scc: (a, None)),
    "s_mov_b64": (64, 64, lambda a, scc: (a, None)),
    "s_not_b32": (32, 32, lambda a, scc: (~a & M32, _nz(~a & M32))),
    "s_not_b64": (64, 64, lambda a, scc: (~a & M64, _nz(~a & M64))),
    "s_brev_b32": (32, 32, _brev),
    "s_bcnt1_i32_b32": (32, 32, _bcnt),
    "s_bcnt1_i32_b64": (32, 64, _bcnt),
    "s_ff1_i32_b32": (32, 32, _ff1(32)),
    "s_ctz_i32_b32": (32, 32, _ff1(32)),
    "s_ff1_i32_b64": (32, 64, _ff1(64)),
    "s_ctz_i32_b64": (32, 64, _ff1(64)),
    "s_flbit_i32_b32": (32, 32, _flbit),
    "s_clz_i32_u32": (32, 32, _flbit),
    "s_sext_i32_i8": (32, 32, _sext(8)),
    "s_sext_i32_i16": (32, 32, _sext(16)),
    "s_abs_i32": (32, 32, lambda a, scc: (abs(_i32(a)) & M32, _nz(abs(_i32(a)) & M32))),
}

SOPC = {
    "s_cmp_eq_u32": (32, lambda a, b: a == b),
    "s_cmp_lg_u32": (32, lambda a, b: a != b),
    "s_cmp_eq_i32": (32, lambda a, b: a == b),
    "s_cmp_lg_i32": (32, lambda a, b: a != b),
    "s_cmp_gt_u32": (32, lambda a, b: a > b),
    "s_cmp_ge_u32": (32, lambda a, b: a >= b),
    "s_cmp_lt_u32": (32, lambda a, b: a < b),
    "s_cmp_le_u32": (32, lambda a, b: a <= b),
    "s_cmp_gt_i32": (32, lambda a, b: _i32(a) > _i32(b)),
    "s_cmp_ge_i32": (32, lambda a, b: _i32(a) >= _i32(b)),
    "s_cmp_lt_i32": (32, lambda a, b: _i32(a) < _i32(b)),
    "s_cmp_le_i32": (32, lambda a, b: _i32(a) <= _i32(b)),
    "s_cmp_eq_u64": (64, lambda a, b: a == b),
    "s_cmp_lg_u64": (64, lambda a, b: a != b),
    "s_bitcmp0_b32": (32, lambda a, b: not a >> (b & 31) & 1),
    "s_bitcmp1_b32": (32, lambda a, b: bool(a >> (b & 31) & 1)),
}

# SOPK: name -> (immediate signed?, fn(dst value, imm) -> (result or None, scc or None))
SOPK = {
    "s_movk_i32": (True, lambda d, k: (k, None)),
    "s_addk_i32": (True, lambda d, k: _add_i(d, k & M32, 0)),
    "s_addk_co_i32": (True, lambda d, k: _add_i(d, k & M32, 0)),
    "s_mulk_i32": (True, lambda d, k: (d * k, None)),
    "s_cmovk_i32": (True, None),
}


def _cmpk(compare):
    """A SOPK compare from its SOPC twin: the 16-bit constant against the SGPR."""
    return lambda d, k: (None, int(compare(d, k & M32)))


for _name, (_width, _fn) in list(SOPC.items()):
    if _width == 32 and _name.startswith("s_cmp_") and _name[-3:] in ("i32", "u32"):
        SOPK["s_cmpk_" + _name[len("s_cmp_") :]] = (_name.endswith("i32"), _cmpk(_fn))


def _ops(inst, n):
    ops = [O.parse(t) for t in inst.operands]
    if len(ops) != n:
        raise BindError(f"expected {n} operands, got {len(ops)}")
    return ops


def bind_sop2(dbits, abits, bbits, fn):
    def binder(inst, ctx):
        d, a, b = _ops(inst, 3)
        ra, rb = O.scalar_reader(a, abits, ctx.apertures), O.scalar_reader(b, bbits, ctx.apertures)
        write, mask = O.scalar_writer(d, dbits), (1 << dbits) - 1

        def step(w):
            r, scc = fn(ra(w), rb(w), w.scc)
            write(w, r & mask)
            if scc is not None:
                w.scc = scc

        return step

    return binder


def bind_sop1(dbits, abits, fn):
    def binder(inst, ctx):
        d, a = _ops(inst, 2)
        ra = O.scalar_reader(a, abits, ctx.apertures)
        write, mask = O.scalar_writer(d, dbits), (1 << dbits) - 1

        def step(w):
            r, scc = fn(ra(w), w.scc)
            write(w, r & mask)
            if scc is not None:
                w.scc = scc

        return step

    return binder


def bind_sopc(bits, fn):
    def binder(inst, ctx):
        a, b = _ops(inst, 2)
        ra, rb = O.scalar_reader(a, bits, ctx.apertures), O.scalar_reader(b, bits, ctx.apertures)

        def step(w):
            w.scc = int(fn(ra(w), rb(w)))

        return step

    return binder


def bind_sopk(signed, fn):
    def binder(inst, ctx):
        d, k = _ops(inst, 2)
        imm = k.value & 0xFFFF
        if signed and imm >> 15:
            imm -= 1 << 16
        read, write = O.scalar_reader(d, 32), O.scalar_writer(d, 32)

        def step(w):
            r, scc = fn(read(w), imm)
            if r is not None:
                write(w, r & M32)
            if scc is not None:
                w.scc = scc

        return step

    return binder


def bind_cmov(bits):
    def binder(inst, ctx):
        d, a = _ops(inst, 2)
        ra, write = O.scalar_reader(a, bits, ctx.apertures), O.scalar_writer(d, bits)

        def step(w):
            if w.scc:
                write(w, ra(w))

        return step

    return binder


# saveexec: D = EXEC; EXEC = fn(S0, EXEC); SCC = EXEC != 0.
SAVEEXEC = {
    "and": lambda s, e: s & e,
    "or": lambda s, e: s | e,
    "xor": lambda s, e: s ^ e,
    "andn2": lambda s, e: s & ~e,
    "and_not1": lambda s, e: s & ~e,
    "andn1": lambda s, e: ~s & e,
    "and_not0": lambda s, e: ~s & e,
    "orn2": lambda s, e: s | ~e,
    "or_not1": lambda s, e: s | ~e,
    "orn1": lambda s, e: ~s | e,
    "or_not0": lambda s, e: ~s | e,
    "nand": lambda s, e: ~(s & e),
    "nor": lambda s, e: ~(s | e),
    "xnor": lambda s, e: ~(s ^ e),
}


def bind_saveexec(bits, fn):
    def binder(inst, ctx):
        d, a = _ops(inst, 2)
        ra, write = O.scalar_reader(a, bits, ctx.apertures), O.scalar_writer(d, bits)
        mask = (1 << bits) - 1

        def step(w):
            old = w.exec_bits
            new = fn(ra(w), old) & mask
            write(w, old)
            w.set_exec(new)
            w.scc = int(w.exec_bits != 0)

        return step

    return binder


# wrexec: EXEC = fn(S0, EXEC); D = EXEC; SCC = EXEC != 0. LLVM folds `x = s_andn2 y, exec; exec = x`
# (an if's else) into one.
WREXEC = {
    "andn2": lambda s, e: s & ~e,
    "and_not1": lambda s, e: s & ~e,
    "andn1": lambda s, e: ~s & e,
    "and_not0": lambda s, e: ~s & e,
}


def bind_wrexec(bits, fn):
    def binder(inst, ctx):
        d, a = _ops(inst, 2)
        ra, write = O.scalar_reader(a, bits, ctx.apertures), O.scalar_writer(d, bits)
        mask = (1 << bits) - 1

        def step(w):
            new = fn(ra(w), w.exec_bits) & mask
            w.set_exec(new)
            write(w, new)
            w.scc = int(new != 0)

        return step

    return binder


def bind_getpc(inst, ctx):
    (d,) = _ops(inst, 1)
    write, value = O.scalar_writer(d, 64), inst.address + inst.size
    return lambda w: write(w, value)


def bind_setpc(inst, ctx):
    ops = [O.parse(t) for t in inst.operands]
    if len(ops) == 2:  # s_swappc_b64 d, s: d = return address
        d, s = ops
        write, ret = O.scalar_writer(d, 64), inst.address + inst.size
    else:
        (s,), write = ops, None
    read = O.scalar_reader(s, 64)

    def step(w):
        target = read(w)
        if write is not None:
            write(w, ret)
        return ctx.index_of(target, inst)

    return step


# -- scalar floats (gfx12): f32 bit patterns in SGPRs ---------------------------------------


def _f(x):
    return np.uint32(x & M32).view(np.float32)


def _bits(x):
    return int(np.float32(x).view(np.uint32))


def _to_int(lo, hi):
    def fn(a, scc):
        x = float(_f(a))
        return (0 if x != x else int(min(max(np.trunc(x), lo), hi)) & M32), None

    return fn


def _fop(fn):
    def op(a, b, scc):
        with np.errstate(all="ignore"):
            return _bits(fn(_f(a), _f(b))), None

    return op


def _fun(fn):
    def op(a, scc):
        with np.errstate(all="ignore"):
            return _bits(fn(_f(a))), None

    return op


SOP2_F32 = {
    "s_add_f32": lambda a, b: a + b,
    "s_sub_f32": lambda a, b: a - b,
    "s_mul_f32": lambda a, b: a * b,
    "s_max_num_f32": np.fmax,
    "s_min_num_f32": np.fmin,
}
SOP1_F32 = {
    "s_cvt_f32_u32": (32, lambda a, scc: (_bits(np.float32(a)), None)),
    "s_cvt_f32_i32": (32, lambda a, scc: (_bits(np.float32(_i32(a))), None)),
    "s_cvt_u32_f32": (32, _to_int(0, M32)),
    "s_cvt_i32_f32": (32, _to_int(-(1 << 31), (1 << 31) - 1)),
    "s_ceil_f32": (32, _fun(np.ceil)),
    "s_floor_f32": (32, _fun(np.floor)),
    "s_trunc_f32": (32, _fun(np.trunc)),
    "s_rndne_f32": (32, _fun(np.rint)),
    # VOP3 pseudo-scalar transcendentals: an SGPR result from a scalar source.
    "v_s_rcp_f32": (32, _fun(lambda x: np.float32(1) / x)),
    "v_s_sqrt_f32": (32, _fun(np.sqrt)),
    "v_s_rsq_f32": (32, _fun(lambda x: np.float32(1) / np.sqrt(x))),
    "v_s_exp_f32": (32, _fun(np.exp2)),
    "v_s_log_f32": (32, _fun(np.log2)),
}
SOPC_F32 = {
    "s_cmp_lt_f32": np.less,
    "s_cmp_le_f32": np.less_equal,
    "s_cmp_gt_f32": np.greater,
    "s_cmp_ge_f32": np.greater_equal,
    "s_cmp_eq_f32": np.equal,
    "s_cmp_lg_f32": lambda a, b: (a < b) | (a > b),
    "s_cmp_neq_f32": lambda a, b: not a == b,
    "s_cmp_o_f32": lambda a, b: a == a and b == b,
    "s_cmp_u_f32": lambda a, b: a != a or b != b,
}


def bind_fmac(inst, ctx):
    """s_fmac_f32 d, a, b: d = a * b + d, rounded once (float64 holds the product exactly)."""
    d, a, b = _ops(inst, 3)
    ra, rb, rd = O.scalar_reader(a, 32, ctx.apertures), O.scalar_reader(b, 32, ctx.apertures), O.scalar_reader(d, 32)
    write = O.scalar_writer(d, 32)

    def step(w):
        x = float(_f(ra(w))) * float(_f(rb(w))) + float(_f(rd(w)))
        write(w, _bits(np.float32(x)))

    return step


# -- scalar memory ----------------------------------------------------------------------

SMEM = {
    "dword": 1,
    "dwordx2": 2,
    "dwordx3": 3,
    "dwordx4": 4,
    "dwordx8": 8,
    "dwordx16": 16,
    "b32": 1,
    "b64": 2,
    "b96": 3,
    "b128": 4,
    "b256": 8,
    "b512": 16,
}


def bind_s_load(dwords, buffer):
    def binder(inst, ctx):
        ops = [O.parse(t) for t in inst.operands]
        if len(ops) not in (3, 4):
            raise BindError(f"expected sdst, sbase, offset[, soffset]; got {len(ops)} operands")
        d, base, offsets = ops[0], ops[1], ops[2:]
        reads = [O.scalar_reader(op, 32) for op in offsets]
        imm = int(inst.modifier("offset", "0"), 0)
        first, counter, at = d.index, ctx.counters["smem"], inst.address
        what = f"{inst.mnemonic} at 0x{at:x} in {ctx.kernel}"
        rbase = O.scalar_reader(base, 64) if not buffer else None
        nbytes = 4 * dwords

        def step(w):
            offset = (sum(r(w) for r in reads) + imm) & M32
            if buffer:
                words = w.s[base.index : base.index + 4]
                start = words[0] | (words[1] & 0xFFFF) << 32
                data = np.zeros(nbytes, np.uint8)
                for k in range(dwords):  # each dword range-checked
                    at_k = (offset & ~3) + 4 * k
                    if at_k + 4 <= words[2]:
                        data[4 * k : 4 * k + 4] = w.memory.read_scalar(start + at_k, 4, what)
            else:
                data = w.memory.read_scalar((rbase(w) + offset) & ~3 & M64, nbytes, what)
            values = [int(x) for x in np.ascontiguousarray(data).view(np.uint32)]
            for k in range(dwords):
                w.write_s(first + k, state.POISON)

            def retire():
                for k, x in enumerate(values):
                    w.write_s(first + k, x)

            access.in_flight(w, counter, retire, at)

        return step

    return binder


def _entries():
    out = {name: bind_sop2(*entry) for name, entry in SOP2.items()}
    out.update({name: bind_sop1(*entry) for name, entry in SOP1.items()})
    out.update({name: bind_sopc(*entry) for name, entry in SOPC.items()})
    out.update({name: bind_sopk(*entry) for name, entry in SOPK.items() if entry[1] is not None})
    out["s_cmov_b32"] = bind_cmov(32)
    out["s_cmov_b64"] = bind_cmov(64)
    for name, fn in SAVEEXEC.items():
        out[f"s_{name}_saveexec_b64"] = bind_saveexec(64, fn)
        out[f"s_{name}_saveexec_b32"] = bind_saveexec(32, fn)
    for name, fn in WREXEC.items():
        out[f"s_{name}_wrexec_b64"] = bind_wrexec(64, fn)
        out[f"s_{name}_wrexec_b32"] = bind_wrexec(32, fn)
    out.update({name: bind_sop2(32, 32, 32, _fop(fn)) for name, fn in SOP2_F32.items()})
    out.update({name: bind_sop1(bits, bits, fn) for name, (bits, fn) in SOP1_F32.items()})
    out.update({name: bind_sopc(32, lambda a, b, f=fn: bool(f(_f(a), _f(b)))) for name, f in SOPC_F32.items()})
    out["s_fmac_f32"] = bind_fmac
    out["s_getpc_b64"] = bind_getpc
    out["s_setpc_b64"] = bind_setpc
    out["s_swappc_b64"] = bind_setpc
    for suffix, dwords in SMEM.items():
        out[f"s_load_{suffix}"] = bind_s_load(dwords, False)
        out[f"s_buffer_load_{suffix}"] = bind_s_load(dwords, True)
    return out


register(_entries())
