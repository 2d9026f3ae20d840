"""What counts.py counts, on hand-written instructions."""

import pytest

from isa import counts
from isa.objdump import Instruction as I


@pytest.mark.parametrize(
    "mnemonic, width",
    [
        ("global_load_dwordx4", 16),
        ("global_load_dwordx2", 8),
        ("global_load_ushort", 2),
        ("global_load_b128", 16),
        ("global_load_d16_hi_b16", 2),
        ("global_load_lds_dwordx4", 16),
        ("buffer_load_dword", 4),
        ("buffer_load_format_xyzw", None),
        ("ds_read_b64", 8),
        ("ds_read_u16_d16_hi", 2),
        ("ds_read2_b32", 8),
        ("ds_read2st64_b64", 16),
        ("ds_read_b64_tr_b16", 8),
        ("ds_load_2addr_stride64_b64", 16),
        ("ds_write_b8_d16_hi", 1),
        ("ds_store_b96", 12),
    ],
)
def test_width(mnemonic, width):
    assert counts.width(mnemonic) == width


@pytest.mark.parametrize(
    "mnemonic, operands, expected",
    [
        ("s_waitcnt", "vmcnt(0)", True),
        ("s_waitcnt", "vmcnt(0) lgkmcnt(0)", True),
        ("s_waitcnt", "vmcnt(10)", False),
        ("s_waitcnt", "lgkmcnt(0)", False),
        ("s_waitcnt_vmcnt", "null, 0x0", True),
        ("s_wait_loadcnt", "0x0", True),
        ("s_wait_loadcnt", "0x2", False),
        ("s_wait_loadcnt_dscnt", "0x3", True),  # loadcnt 0, dscnt 3
        ("s_wait_loadcnt_dscnt", "0x203", False),  # loadcnt 2
        ("s_wait_dscnt", "0x0", False),
    ],
)
def test_waits_for_vmcnt0(mnemonic, operands, expected):
    assert counts.waits_vmcnt0(mnemonic, operands) is expected


@pytest.mark.parametrize(
    "mnemonic, operands, loads",
    [
        ("s_waitcnt", "vmcnt(3) lgkmcnt(0)", 3),
        ("s_waitcnt", "lgkmcnt(0) vmcnt(12)", 12),
        ("s_waitcnt", "lgkmcnt(0)", None),
        ("s_waitcnt_vmcnt", "null, 0x5", 5),
        ("s_waitcnt_vscnt", "null, 0x0", None),  # stores' counter (gfx10, gfx11)
        ("s_wait_loadcnt", "0x7", 7),
        ("s_wait_loadcnt_dscnt", "0x502", 5),  # loadcnt in bits 13:8, dscnt 2 below
        ("s_wait_storecnt", "0x0", None),
        ("s_wait_dscnt", "0x0", None),
    ],
)
def test_the_load_count_a_wait_waits_for(mnemonic, operands, loads):
    assert counts.vm_wait(mnemonic, operands) == loads


@pytest.mark.parametrize(
    "mnemonic, macs",
    [
        ("v_mfma_f32_16x16x16_f16", 16 * 16 * 16),
        ("v_mfma_f32_32x32x8_f16", 32 * 32 * 8),
        ("v_mfma_f32_32x32x16_bf16", 32 * 32 * 16),
        ("v_mfma_i32_16x16x64_i8", 16 * 16 * 64),
        ("v_mfma_f32_16x16x32_fp8_fp8", 16 * 16 * 32),
        ("v_mfma_f64_16x16x4_f64", 16 * 16 * 4),
        ("v_mfma_scale_f32_32x32x64_f8f6f4", 32 * 32 * 64),
        # Blocked forms: the blocks spelled, or implied by gfx90a's spelling.
        ("v_mfma_f32_32x32x1_2b_f32", 2 * 32 * 32 * 1),
        ("v_mfma_f32_4x4x4_16b_f16", 16 * 4 * 4 * 4),
        ("v_mfma_f64_4x4x4_4b_f64", 4 * 4 * 4 * 4),
        ("v_mfma_f32_32x32x1f32", 2 * 32 * 32 * 1),
        ("v_mfma_f32_16x16x4f16", 4 * 16 * 16 * 4),
        ("v_mfma_f32_4x4x2bf16", 16 * 4 * 4 * 2),
        ("v_mfma_f32_32x32x4bf16_1k", 2 * 32 * 32 * 4),
        # gfx90a's single-block spellings.
        ("v_mfma_f32_16x16x16f16", 16 * 16 * 16),
        ("v_mfma_f32_32x32x8bf16_1k", 32 * 32 * 8),
        ("v_mfma_f32_16x16x4f32", 16 * 16 * 4),
        ("v_mfma_i32_32x32x8i8", 32 * 32 * 8),
        # WMMA (wave32 and wave64 alike) and the sparse forms, as spelled.
        ("v_wmma_f32_16x16x16_f16", 16 * 16 * 16),
        ("v_wmma_i32_16x16x32_iu4", 16 * 16 * 32),
        ("v_wmma_f32_16x16x128_fp8_fp8", 16 * 16 * 128),
        ("v_smfmac_f32_16x16x32_f16", 16 * 16 * 32),
        ("v_swmmac_f32_16x16x32_f16", 16 * 16 * 32),
    ],
)
def test_macs_of_each_matrix_shape(mnemonic, macs):
    assert counts.is_matrix(mnemonic)
    assert counts.macs(mnemonic) == macs


def test_a_scale_load_is_no_matrix_instruction_and_a_shapeless_one_is_refused():
    assert not counts.is_matrix("v_mfma_ld_scale_b32")
    with pytest.raises(counts.ShapeError, match="expected a matrix mnemonic with an MxNxK shape.*'v_mfma_x'"):
        counts.macs("v_mfma_x")


@pytest.mark.parametrize(
    "mnemonic, kind",
    [
        ("v_wmma_f32_16x16x16_f16", "matrix"),
        ("global_load_b128", "memory"),
        ("buffer_store_dword", "memory"),
        ("global_atomic_add_f32", "memory"),
        ("ds_read_b128", "memory"),
        ("s_delay_alu", "hint"),
        ("s_waitcnt", None),
        ("v_add_u32_e32", None),
    ],
)
def test_kinds_the_main_loop_weighs(mnemonic, kind):
    assert counts.kind(mnemonic) == kind


def test_scheduling_hints_are_counted_apart():
    body = [
        I(0, "s_nop", "1"),
        I(4, "s_delay_alu", "instid0(VALU_DEP_1)"),
        I(8, "s_wait_alu", "0xfffd"),
        I(12, "s_clause", "0x1"),
        I(16, "s_waitcnt_depctr", "0xfffe"),
        I(20, "s_set_vgpr_msb", "0x41"),
        I(24, "v_add_u32_e32", "v0, v1, v2"),
        I(28, "s_waitcnt", "vmcnt(0)"),
    ]
    c = counts.count(body)
    assert (c["instructions"], c["scheduling_hints"]) == (8, 6)


@pytest.mark.parametrize(
    "mnemonic, operands, expected",
    [
        ("s_and_saveexec_b64", "s[0:1], s[2:3]", True),
        ("s_and_not1_saveexec_b32", "s6, s7", True),
        ("s_or_b64", "exec, exec, s[12:13]", True),
        ("s_or_b32", "exec_lo, exec_lo, s0", True),
        ("s_mov_b64", "exec, -1", True),
        ("s_and_not1_wrexec_b32", "s0, s1", True),
        ("v_cmpx_gt_u32_e32", "64, v0", True),
        ("s_and_b64", "s[0:1], s[0:1], exec", False),
        ("s_xor_b32", "s7, exec_lo, s21", False),
        ("v_add_u32_e32", "v0, v1, v2", False),
    ],
)
def test_exec_writes(mnemonic, operands, expected):
    assert counts.writes_exec(mnemonic, operands) is expected


@pytest.mark.parametrize(
    "mnemonic, counted",
    [
        ("s_waitcnt", True),
        ("s_waitcnt_vscnt", True),
        ("s_waitcnt_depctr", False),
        ("s_wait_loadcnt", True),
        ("s_wait_loadcnt_dscnt", True),
        ("s_wait_xcnt", True),
        ("s_wait_alu", False),
        ("s_wait_idle", False),
    ],
)
def test_which_waits_count(mnemonic, counted):
    assert counts.count([I(0, mnemonic, "0x0")])["waits"]["count"] == int(counted)


def test_count_of_a_small_loop_body():
    body = [
        I(0, "s_waitcnt", "vmcnt(1)"),
        I(4, "global_load_dwordx4", "v[0:3], v[4:5], off"),
        I(12, "global_load_dwordx4", "v[6:9], v[4:5], off offset:16"),
        I(20, "global_load_ushort", "v10, v[4:5], off"),
        I(28, "s_waitcnt", "vmcnt(0)"),
        I(32, "ds_write_b128", "v11, v[0:3]"),
        I(40, "s_barrier", ""),
        I(44, "ds_read_b64", "v[12:13], v11"),
        I(52, "ds_read2st64_b64", "v[14:17], v11 offset1:1"),
        I(60, "v_mfma_f32_16x16x16_f16", "v[20:23], v[12:13], v[14:15], v[20:23]"),
        I(68, "v_mfma_f32_16x16x16_f16", "v[20:23], v[12:13], v[16:17], v[20:23]"),
        I(76, "s_and_saveexec_b64", "s[0:1], vcc"),
        I(80, "s_cbranch_execz", "1", 88),
        I(84, "s_or_b64", "exec, exec, s[0:1]"),
        I(88, "s_cbranch_scc1", "65520", 0),
    ]
    c = counts.count(body)
    assert c["instructions"] == 15
    assert c["matrix"] == {
        "count": 2,
        "macs": 2 * 16 * 16 * 16,
        "by_mnemonic": [{"mnemonic": "v_mfma_f32_16x16x16_f16", "count": 2, "macs": 16 * 16 * 16}],
    }
    assert c["scheduling_hints"] == 0
    assert c["global_loads"] == {
        "count": 3,
        "bytes": 16 + 16 + 2,
        "by_mnemonic": [
            {"mnemonic": "global_load_dwordx4", "count": 2, "bytes": 16},
            {"mnemonic": "global_load_ushort", "count": 1, "bytes": 2},
        ],
    }
    assert c["lds_reads"]["count"] == 2 and c["lds_reads"]["bytes"] == 8 + 16
    assert c["lds_writes"]["count"] == 1 and c["lds_writes"]["bytes"] == 16
    assert c["waits"] == {"count": 2, "vmcnt0": 1}
    assert (c["branches"], c["exec_writes"], c["barriers"]) == (2, 2, 1)


def test_stores_are_counted_apart_from_loads_and_atomics():
    c = counts.count(
        [
            I(0, "global_store_dwordx2", "v[0:1], v[2:3], off"),
            I(8, "buffer_store_short", "v5, v4, s[0:3], 0 offen"),
            I(16, "global_store_b128", "v0, v[4:7], s[0:1]"),
            I(24, "global_atomic_add_f32", "v[0:1], v2, off"),
            I(32, "global_load_dword", "v5, v[0:1], off"),
        ]
    )
    assert c["global_stores"] == {
        "count": 3,
        "bytes": 2 + 8 + 16,
        "by_mnemonic": [
            {"mnemonic": "buffer_store_short", "count": 1, "bytes": 2},
            {"mnemonic": "global_store_b128", "count": 1, "bytes": 16},
            {"mnemonic": "global_store_dwordx2", "count": 1, "bytes": 8},
        ],
    }
    assert c["global_loads"]["count"] == 1


def test_a_format_load_has_no_total_bytes():
    c = counts.count(
        [
            I(0, "buffer_load_format_xyzw", "v[0:3], v4, s[0:3], 0 offen"),
            I(8, "buffer_load_dword", "v5, v4, s[0:3], 0 offen"),
        ]
    )
    assert c["global_loads"]["count"] == 2 and c["global_loads"]["bytes"] is None


def test_a_direct_to_lds_load_is_a_global_load_and_no_lds_write():
    # global_load_lds_dwordx4 (gfx950) reads 16 bytes a lane from global
    # memory and writes them to LDS itself: a global load of 16 bytes; the
    # loop holds no LDS write instruction.
    body = [
        I(0, "s_add_i32", "m0, s12, 0x2000"),
        I(8, "global_load_lds_dwordx4", "v[86:87], off"),
        I(16, "global_load_lds_dwordx4", "v[88:89], off"),
        I(24, "s_waitcnt", "vmcnt(0)"),
        I(28, "s_barrier", ""),
        I(32, "s_cbranch_scc0", "65500", 0),
    ]
    c = counts.count(body)
    assert c["global_loads"] == {
        "count": 2,
        "bytes": 32,
        "by_mnemonic": [{"mnemonic": "global_load_lds_dwordx4", "count": 2, "bytes": 16}],
    }
    assert c["lds_writes"]["count"] == 0 and c["waits"] == {"count": 1, "vmcnt0": 1}
