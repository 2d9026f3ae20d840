"""Scalar and vector ALU semantics on hand-computed values: integer wrap,
shifts, carries, bit fields, byte permutes, exec-masked lanes, SDWA and
true16 halves, f16/bf16 rounding, NaN and denormals."""

import numpy as np
import pytest

from emu import state, testing, valu


def one_wave(arch, lines, setup=None):
    wg = testing.workgroup(arch, lines)
    w = wg.waves[0]
    if setup:
        setup(w)
    testing.run(wg)
    return w


# -- scalar ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lines, sgpr, value, scc",
    [
        (["s_mov_b32 s1, -1", "s_add_u32 s0, s1, 2"], 0, 1, 1),  # 0xffffffff + 2 wraps, carry out
        (["s_mov_b32 s1, -1", "s_add_u32 s2, s1, 1", "s_addc_u32 s0, 0, 0"], 0, 1, 0),  # the carry comes in
        (["s_mov_b32 s1, 0x7fffffff", "s_add_i32 s0, s1, 1"], 0, 0x80000000, 1),  # signed overflow
        (["s_sub_u32 s0, 1, 2"], 0, 0xFFFFFFFF, 1),  # borrow
        (["s_lshl_b32 s0, 1, 33"], 0, 2, 1),  # the shift amount is taken mod 32
        (["s_mov_b32 s1, -8", "s_ashr_i32 s0, s1, 1"], 0, 0xFFFFFFFC, 1),
        (["s_mov_b32 s1, 0x80000000", "s_lshr_b32 s0, s1, 31"], 0, 1, 1),
        (["s_mov_b32 s1, 0x12345678", "s_bfe_u32 s0, s1, 0x80008"], 0, 0x56, 1),  # offset 8, width 8
        (["s_mov_b32 s1, 0x0000f000", "s_bfe_i32 s0, s1, 0x4000c"], 0, 0xFFFFFFFF, 1),  # 4-bit field 0xf is -1
        (["s_mov_b32 s1, -2", "s_mul_hi_i32 s0, s1, 3"], 0, 0xFFFFFFFF, 0),  # -6 >> 32 = -1; SCC kept
        (["s_movk_i32 s0, 0x8000"], 0, 0xFFFF8000, 0),  # SOPK sign-extends
        (["s_mov_b32 s0, 5", "s_cmpk_lt_u32 s0, 0x8000"], 0, 5, 1),  # ... but the u32 compare zero-extends
        (["s_mov_b32 s0, 5", "s_cmpk_lt_i32 s0, 0x8000"], 0, 5, 0),  # 5 < -32768 is false
        (["s_cmp_eq_u32 0, 0", "s_cselect_b32 s0, 7, 9"], 0, 7, 1),
        (["s_mov_b32 s1, 3", "s_lshl2_add_u32 s0, s1, 1"], 0, 13, 0),
        (["s_mov_b32 s1, -1", "s_min_i32 s0, s1, 4"], 0, 0xFFFFFFFF, 1),
    ],
)
def test_scalar(lines, sgpr, value, scc):
    w = one_wave("gfx942", lines)
    assert (w.s[sgpr], w.scc) == (value, scc)


def test_saveexec_and_exec_branch():
    # exec = 0b1010 & exec (lanes 1 and 3); s[2:3] keeps the old exec.
    w = one_wave("gfx942", ["s_mov_b64 s[0:1], 10", "s_and_saveexec_b64 s[2:3], s[0:1]", "v_mov_b32_e32 v1, 7"])
    assert w.exec_bits == 10 and w.s[2] == 0xFFFFFFFF and w.s[3] == 0xFFFFFFFF and w.scc == 1
    assert list(w.v[:4, 1]) == [state.POISON, 7, state.POISON, 7]


# -- vector integer ------------------------------------------------------------------------


def _lanes(w, r):
    return [int(x) for x in w.v[:4, r]]


def test_vector_integer_wrap_and_shifts():
    def setup(w):
        w.v[:, 0] = [0xFFFFFFFF, 0x80000000, 5, 0x12345678] * 16

    w = one_wave(
        "gfx942",
        [
            "v_add_u32_e32 v1, 1, v0",  # wraps to 0 in lane 0
            "v_lshlrev_b32_e32 v2, 33, v0",  # the shift amount is mod 32: << 1
            "v_ashrrev_i32_e32 v3, 31, v0",  # sign fill
            "v_mul_hi_u32 v4, v0, v0",
            "v_bfe_i32 v5, v0, 28, 4",  # the top nibble, sign-extended
            "v_mul_i32_i24_e32 v6, -2, v0",  # low 24 bits, signed: 0xffffff is -1
        ],
        setup,
    )
    assert _lanes(w, 1) == [0, 0x80000001, 6, 0x12345679]
    assert _lanes(w, 2) == [0xFFFFFFFE, 0, 10, 0x2468ACF0]
    assert _lanes(w, 3) == [0xFFFFFFFF, 0xFFFFFFFF, 0, 0]
    assert _lanes(w, 4) == [0xFFFFFFFE, 0x40000000, 0, 0x14B66DC]
    assert _lanes(w, 5) == [0xFFFFFFFF, 0xFFFFFFF8, 0, 1]
    assert _lanes(w, 6) == [2, 0, 0xFFFFFFF6, (-2 * 0x345678) & 0xFFFFFFFF]


def test_clamp_saturates_unsigned_add_and_subtract():
    def setup(w):
        w.v[:, 0] = np.resize([3, 5, 0xFFFFFFFE, 0], len(w.v))  # 64 lanes on gfx942, 32 on gfx1201

    lines = [
        "v_sub_u32_e64 v1, v0, 4 clamp",  # below 0: 0
        "v_subrev_u32_e64 v2, v0, 4 clamp",  # 4 - v0
        "v_add_u32_e64 v3, v0, 3 clamp",  # past 2^32 - 1: 2^32 - 1
        "v_sub_u32_e64 v4, v0, 4",  # no clamp: wraps
    ]
    w = one_wave("gfx942", lines, setup)
    assert _lanes(w, 1) == [0, 1, 0xFFFFFFFA, 0]
    assert _lanes(w, 2) == [1, 0, 0, 4]
    assert _lanes(w, 3) == [6, 8, 0xFFFFFFFF, 3]
    assert _lanes(w, 4) == [0xFFFFFFFF, 1, 0xFFFFFFFA, 0xFFFFFFFC]
    w = one_wave("gfx1201", ["v_sub_nc_u32_e64 v1, v0, 4 clamp"], setup)
    assert _lanes(w, 1) == [0, 1, 0xFFFFFFFA, 0]


def test_carry_chain_and_mad64():
    def setup(w):
        w.v[:, 0] = [0xFFFFFFFF, 1, 0xFFFFFFFE, 0x80000000] * 16
        w.v[:, 1] = [1, 2, 1, 0x80000000] * 16

    w = one_wave(
        "gfx942",
        [
            "v_add_co_u32_e32 v2, vcc, v0, v1",  # carry where the sum passes 2^32
            "v_addc_co_u32_e32 v3, vcc, 0, 0, vcc",  # the carry as a value
            "v_mov_b32_e32 v4, 0",
            "v_mov_b32_e32 v5, 1",
            "v_mad_u64_u32 v[6:7], s[0:1], v0, v0, v[4:5]",  # x*x + 2^32
        ],
        setup,
    )
    assert _lanes(w, 2) == [0, 3, 0xFFFFFFFF, 0]
    assert _lanes(w, 3) == [1, 0, 0, 1]  # 0xfffffffe + 1 fits: no carry
    lo, hi = _lanes(w, 6), _lanes(w, 7)
    assert [(h << 32) | low for low, h in zip(lo, hi)] == [
        (x * x + (1 << 32)) % (1 << 64) for x in (0xFFFFFFFF, 1, 0xFFFFFFFE, 0x80000000)
    ]


def test_perm_and_bitfields():
    def setup(w):
        w.v[:, 0] = 0x11223344
        w.v[:, 1] = 0xAABBCCDD

    w = one_wave(
        "gfx942",
        [
            # selector bytes (low first): 0 -> v1's byte 0 (0xdd), 4 -> v0's byte 0 (0x44),
            # 12 -> 0x00, 13 -> 0xff.
            "v_mov_b32_e32 v2, 0xd0c0400",
            "v_perm_b32 v3, v0, v1, v2",
            # selector 0x0b0a0908: bytes 8..11 are sign fills of bytes 1, 3, 5, 7 of {v0, v1}:
            # v1 byte 1 = 0xcc (negative), v1 byte 3 = 0xaa, v0 byte 1 = 0x33, v0 byte 3 = 0x11.
            "v_mov_b32_e32 v4, 0xb0a0908",
            "v_perm_b32 v5, v0, v1, v4",
            "v_bfi_b32 v6, 0xffff, v0, v1",
            "v_alignbit_b32 v7, v0, v1, 8",
        ],
        setup,
    )
    assert _lanes(w, 3)[0] == 0xFF0044DD
    assert _lanes(w, 5)[0] == 0x0000FFFF
    assert _lanes(w, 6)[0] == 0xAABB3344
    assert _lanes(w, 7)[0] == 0x44AABBCC


def _bfe_i32_reference(x, offset, width):
    """v_bfe_i32 as the ISA states it, on Python ints: bits offset..offset+width-1 of x, sign-extended."""
    offset, width = offset & 31, width & 31
    field = (x >> offset) & ((1 << width) - 1)
    if width and field >> (width - 1) & 1:
        field -= 1 << width
    return field & 0xFFFFFFFF


def test_signed_bitfield_extract_every_offset_and_width():
    # A constant offset and width take one route through the semantics, a per-lane one another: both held
    # to the ISA's statement for every offset and width (a field past bit 31 included).
    x = np.array([0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x12345678, 0xA5A5A5A5, 0, 1, 0xDEADBEEF], np.uint32)
    for offset in range(32):
        for width in range(32):
            want = [_bfe_i32_reference(int(v), offset, width) for v in x]
            constant = valu._bfe_i(x, np.array([offset], np.uint32), np.array([width], np.uint32))
            per_lane = valu._bfe_i(x, np.full(x.shape, offset, np.uint32), np.full(x.shape, width, np.uint32))
            assert constant.dtype == per_lane.dtype == np.uint32
            assert list(constant) == want, (offset, width)
            assert list(per_lane) == want, (offset, width)


def test_mbcnt_counts_lanes_below():
    w = one_wave("gfx942", ["v_mbcnt_lo_u32_b32 v1, -1, 0", "v_mbcnt_hi_u32_b32 v1, -1, v1"])
    assert list(w.v[:, 1]) == list(range(64))


def test_exec_masked_lanes_untouched():
    def setup(w):
        w.v[:, 1] = 7
        w.v[:, 2] = 9
        w.set_exec(0b0101)

    w = one_wave("gfx942", ["v_mov_b32_e32 v2, 5", "v_cmp_eq_u32_e64 s[0:1], 7, v1"], setup)
    assert _lanes(w, 2) == [5, 9, 5, 9]
    assert w.s[0] == 0b0101 and w.s[1] == 0  # inactive lanes' bits are 0, though 7 == 7 there too


def test_16_bit_wrap_and_halves():
    def setup(w):
        w.v[:, 0] = 0xABCDFFFF

    w = one_wave(
        "gfx942",
        [
            "v_add_u16_e32 v1, 2, v0",  # 0xffff + 2 = 1; gfx9 zeroes the high half
            "v_mov_b32_e32 v2, 0x11112222",
            "v_add_u16_sdwa v2, v0, v0 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:BYTE_0",
        ],
        setup,
    )
    assert _lanes(w, 1)[0] == 1
    assert _lanes(w, 2)[0] == (((0xABCD + 0xFF) & 0xFFFF) << 16) | 0x2222


def test_sdwa_sign_extension():
    def setup(w):
        w.v[:, 0] = 0x0000F080

    w = one_wave(
        "gfx942",
        ["v_add_u32_sdwa v1, sext(v0), 0 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD"],
        setup,
    )
    assert _lanes(w, 1)[0] == 0xFFFFFF80


def test_true16_halves_on_gfx12():
    def setup(w):
        w.v[:, 1] = 0x00050003

    w = one_wave(
        "gfx1201",
        [
            "v_add_nc_u16 v1.h, v1.l, v1.h op_sel:[0,1,1]",
            "v_mov_b16_e32 v2.l, v1.h",
            "v_mov_b32_e32 v3, 0x12345678",
            "v_mov_b16_e32 v3.h, 0",
        ],
        setup,
    )
    assert _lanes(w, 1)[0] == 0x00080003
    assert _lanes(w, 3)[0] == 0x00005678


# -- floats --------------------------------------------------------------------------------


def _f32(x):
    return int(np.float32(x).view(np.uint32))


def test_f16_conversion_rounds_to_nearest_even():
    values = [1 + 2**-11, 1 + 3 * 2**-11, 65519.0, 65520.0]  # ties, the largest finite, overflow

    def setup(w):
        w.v[:4, 0] = [_f32(v) for v in values]

    w = one_wave("gfx942", ["v_cvt_f16_f32_e32 v1, v0"], setup)
    # 1+2^-11 ties to 1.0 (0x3c00); 1+3*2^-11 ties up to 1+2^-9 (0x3c02); 65519 -> 65504 (0x7bff); 65520 -> inf.
    assert _lanes(w, 1) == [0x3C00, 0x3C02, 0x7BFF, 0x7C00]


def test_bf16_pack_rounds_to_nearest_even_and_keeps_nan():
    def setup(w):
        w.v[:4, 0] = [0x3F808000, 0x3F818000, 0x7FC00001, 0x3F80FFFF]
        w.v[:4, 1] = 0

    w = one_wave("gfx950", ["v_cvt_pk_bf16_f32 v2, v0, v1"], setup)
    assert [x & 0xFFFF for x in _lanes(w, 2)] == [0x3F80, 0x3F82, 0x7FC0, 0x3F81]


def test_denormals_kept_and_nan_rules():
    tiny = 2.0**-149

    def setup(w):
        w.v[:4, 0] = [_f32(tiny), _f32(np.nan), _f32(1.0), _f32(-0.0)]
        w.v[:4, 1] = [_f32(tiny), _f32(1.0), _f32(np.nan), _f32(2.0)]

    w = one_wave(
        "gfx942", ["v_add_f32_e32 v2, v0, v1", "v_max_f32_e32 v3, v0, v1", "v_cmp_u_f32_e64 s[0:1], v0, v1"], setup
    )
    assert _lanes(w, 2)[0] == _f32(2 * tiny)  # a denormal sum, not flushed
    assert _lanes(w, 3)[1:3] == [_f32(1.0), _f32(1.0)]  # max ignores a NaN operand
    assert w.s[0] & 0xF == 0b0110


def test_fma_mix_reads_f16_halves():
    def setup(w):
        w.v[:, 0] = (0x4000 << 16) | 0x3C00  # f16 halves: hi 2.0, lo 1.0
        w.v[:, 1] = _f32(3.0)
        w.v[:, 2] = _f32(0.5)

    w = one_wave("gfx942", ["v_fma_mix_f32 v3, v0, v1, v2 op_sel:[1,0,0] op_sel_hi:[1,0,0]"], setup)
    assert _lanes(w, 3)[0] == _f32(2.0 * 3.0 + 0.5)


def test_agpr_moves():
    def setup(w):
        w.v[:, 0] = np.arange(64, dtype=np.uint32)
        w.set_exec(0b11)

    w = one_wave(
        "gfx942",
        [
            "v_accvgpr_write_b32 a3, v0",
            "v_accvgpr_mov_b32 a4, a3",
            "v_accvgpr_read_b32 v1, a4",
            "v_accvgpr_write_b32 a5, 7",
        ],
        setup,
    )
    assert [int(x) for x in w.a[:3, 3]] == [0, 1, state.POISON]
    assert _lanes(w, 1)[:3] == [0, 1, state.POISON] and int(w.a[1, 5]) == 7


def test_gfx12_wave_index_in_ttmp8():
    # LLVM reads llvm.amdgcn.wave.id on gfx12 as s_bfe_u32 ttmp8, 0x50019 (bits 29:25).
    wg = testing.workgroup("gfx1201", ["s_bfe_u32 s0, ttmp8, 0x50019"], waves=3)
    testing.run(wg)
    assert [w.s[0] for w in wg.waves] == [0, 1, 2]


def test_packed_16_bit_mad_wraps_and_selects_halves():
    def setup(w):
        w.v[:, 0] = 0x0003_FFFF  # halves: lo 0xffff, hi 3
        w.v[:, 1] = 0x0005_0002  # lo 2, hi 5
        w.v[:, 2] = 0x0100_0007  # lo 7, hi 0x100

    w = one_wave(
        "gfx942",
        [
            "v_pk_mad_u16 v3, v0, v1, v2",  # lo: 0xffff * 2 + 7 wraps to 5; hi: 3 * 5 + 0x100
            "v_pk_mad_u16 v4, v0, v1, v2 op_sel:[1,0,0] op_sel_hi:[0,1,1]",  # lo takes a's hi (3), hi a's lo (0xffff)
        ],
        setup,
    )
    assert _lanes(w, 3)[0] == (0x10F << 16) | 5
    assert _lanes(w, 4)[0] == (((0xFFFF * 5 + 0x100) & 0xFFFF) << 16) | 13


def test_exp_expansion_ops_round_scale_and_fuse():
    def setup(w):
        w.v[:4, 0] = [_f32(2.5), _f32(3.5), _f32(-2.5), _f32(1.25)]
        w.v[:4, 1] = [3, (-2) & 0xFFFFFFFF, 0, 200]
        w.v[:4, 2] = _f32(1.0)

    w = one_wave(
        "gfx942",
        ["v_rndne_f32_e32 v3, v0", "v_ldexp_f32 v4, v0, v1", "v_fmamk_f32 v5, v0, 0x40000000, v2"],
        setup,
    )
    assert _lanes(w, 3) == [_f32(2.0), _f32(4.0), _f32(-2.0), _f32(1.0)]  # ties to even
    assert _lanes(w, 4) == [_f32(20.0), _f32(0.875), _f32(-2.5), _f32(np.inf)]
    assert _lanes(w, 5) == [_f32(6.0), _f32(8.0), _f32(-4.0), _f32(3.5)]  # v0 * 2 + 1


def test_the_epilogue_clamps_and_fused_literals():
    """v_fmaak_f32 (src0 * vsrc1 + K), gfx12's med3/maxmin/minmax in num form (ReLU6's clamp), and a VOPD
    pair of fmaak and mul reading its sources before either half writes."""

    def setup(w):
        w.v[:4, 0] = [_f32(-1.0), _f32(3.0), _f32(7.5), _f32(np.nan)]
        w.v[:4, 1] = _f32(0.0)
        w.v[:4, 2] = _f32(6.0)

    w = one_wave("gfx942", ["v_fmaak_f32 v3, v0, v2, 0x3f800000"], setup)  # v0 * 6 + 1
    assert _lanes(w, 3)[:3] == [_f32(-5.0), _f32(19.0), _f32(46.0)]
    w = one_wave(
        "gfx1201",
        [
            "v_med3_num_f32 v3, v0, v1, v2",
            "v_maxmin_num_f32 v4, v0, v1, v2",
            "v_minmax_num_f32 v5, v0, v2, v1",
            "v_dual_fmaak_f32 v6, v0, v2, 0x3f800000 :: v_dual_mul_f32 v0, v0, v2",
        ],
        setup,
    )
    assert _lanes(w, 3)[:3] == _lanes(w, 4)[:3] == [_f32(0.0), _f32(3.0), _f32(6.0)]
    assert _lanes(w, 4)[3] == _f32(0.0)  # max(NaN, 0) is 0, then min(0, 6)
    assert _lanes(w, 5)[:3] == [_f32(0.0), _f32(3.0), _f32(6.0)]
    assert _lanes(w, 6)[:3] == [_f32(-5.0), _f32(19.0), _f32(46.0)]
    assert _lanes(w, 0)[:3] == [_f32(-6.0), _f32(18.0), _f32(45.0)]


def test_max3_num_ignores_a_nan():
    def setup(w):
        w.v[:2, 0] = [_f32(1.0), _f32(np.nan)]
        w.v[:2, 1] = [_f32(3.0), _f32(-1.0)]
        w.v[:2, 2] = [_f32(2.0), _f32(-2.0)]

    w = one_wave("gfx1201", ["v_max3_num_f32 v3, v0, v1, v2"], setup)
    assert _lanes(w, 3)[:2] == [_f32(3.0), _f32(-1.0)]


def test_permlanex16_takes_from_the_other_row():
    def setup(w):
        w.v[:, 0] = np.arange(32, dtype=np.uint32) + 100
        w.s[12] = 0x76543210

    w = one_wave("gfx1201", ["v_permlanex16_b32 v1, v0, s12, 0xfedcba98"], setup)
    # identity selects: lane j of one row reads lane j of the other
    assert [int(x) for x in w.v[:32, 1]] == [100 + (j + 16) % 32 for j in range(32)]


@pytest.mark.parametrize("op_sel,want", [("", (1, 3)), (" op_sel:[1,0]", (2, 3)), (" op_sel:[0,1]", (1, 4))])
def test_pk_mov_takes_its_high_result_from_the_second_source(op_sel, want):
    """v_pk_mov_b32 v[4:5], v[0:1], v[2:3]: the low result is v0 or v1 (op_sel[0]), the high one v2 or v3
    (op_sel[1]); LLVM 23 writes op_sel:[1,0] to gather two products' halves into one pair."""

    def setup(w):
        for r, value in enumerate((1.0, 2.0, 3.0, 4.0)):
            w.v[:, r] = np.float32(value).view(np.uint32)

    w = one_wave("gfx942", [f"v_pk_mov_b32 v[4:5], v[0:1], v[2:3]{op_sel}"], setup)
    assert tuple(float(w.v[0, r].view(np.float32)) for r in (4, 5)) == want
