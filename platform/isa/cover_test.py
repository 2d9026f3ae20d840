"""Latency cover and the main loop's figures on hand-written loops, each
expected number counted by hand beside it."""

import pytest

from isa import cover, loops, metrics
from isa.counts import kind
from isa.objdump import Instruction as I


def _loop(*rows):
    """The main loop of instructions 4 bytes apart, from (mnemonic, operands) or
    (mnemonic, operands, target index)."""
    insts = tuple(I(4 * n, m, ops, 4 * rest[0] if rest else None) for n, (m, ops, *rest) in enumerate(rows))
    return loops.main_loop(insts, kind)


MFMA = ("v_mfma_f32_32x32x8_f16", "v[0:15], v[16:17], v[18:19], v[0:15]")


def _two_loads_and_a_store(load, store, wait_2, wait_1):
    # 0 entry; the loop is 1..10 (header 1, back edge at 10); 11 ends.
    return _loop(
        ("s_mov_b32", "s0, 0"),
        (load, "v[20:23], v[24:25], off"),  # 1: load A
        (load, "v[26:29], v[24:25], off offset:64"),  # 2: load B
        MFMA,  # 3
        MFMA,  # 4
        wait_2,  # 5
        MFMA,  # 6
        (store, "v[24:25], v[30:33], off"),  # 7
        wait_1,  # 8
        MFMA,  # 9
        ("s_cbranch_scc1", "65527", 1),  # 10
        ("s_endpgm", ""),
    )


def test_on_gfx9_stores_count_toward_vmcnt():
    loop = _two_loads_and_a_store(
        "global_load_dwordx4", "global_store_dwordx4", ("s_waitcnt", "vmcnt(2)"), ("s_waitcnt", "vmcnt(1)")
    )
    # A: at vmcnt(2) only B has issued after it (1 < 2); at vmcnt(1) B and the
    # store have (2 >= 1): retired after the MFMAs at 3, 4 and 6.
    # B: at vmcnt(2) nothing after it; at vmcnt(1) the store (1 >= 1): 3, 4, 6.
    got = cover.cover(loop, "gfx942")
    assert got == {"count": 3, "of": 4, "load": 4, "loads": [{"offset": 4, "count": 3}, {"offset": 8, "count": 3}]}


def test_on_gfx12_loadcnt_counts_loads_only():
    loop = _two_loads_and_a_store(
        "global_load_b128", "global_store_b128", ("s_wait_loadcnt", "0x2"), ("s_wait_loadcnt", "0x1")
    )
    # A: at loadcnt 2, B after it (1 < 2); at loadcnt 1, still only B (the
    # store is not counted), 1 >= 1: retired after 3, 4, 6.
    # B: no load after it before either wait; wrapping, A of the next
    # iteration issues but no wait follows before B again: all 4 MFMAs.
    got = cover.cover(loop, "gfx1201")
    assert got == {"count": 3, "of": 4, "load": 4, "loads": [{"offset": 4, "count": 3}, {"offset": 8, "count": 4}]}


def test_a_wait_in_the_next_iteration_is_reached_by_wrapping():
    loop = _loop(
        ("s_mov_b32", "s0, 0"),
        ("s_waitcnt", "vmcnt(0) lgkmcnt(0)"),  # 1: the header
        MFMA,  # 2
        MFMA,  # 3
        ("buffer_load_dwordx4", "v[20:23], v24, s[0:3], 0 offen"),  # 4
        MFMA,  # 5
        ("s_cbranch_scc1", "65530", 1),  # 6
        ("s_endpgm", ""),
    )
    # The load: the MFMA at 5, then the header's vmcnt(0) of the next iteration.
    assert cover.cover(loop, "gfx950") == {"count": 1, "of": 3, "load": 16, "loads": [{"offset": 16, "count": 1}]}


def test_a_rotated_loop_is_walked_from_its_header():
    # The entry jumps to 4, the header; the loop is 1..6, entered in its middle.
    loop = _loop(
        ("s_branch", "3", 4),  # 0
        ("global_load_dwordx4", "v[20:23], v[24:25], off"),  # 1
        MFMA,  # 2
        ("s_cbranch_scc0", "4", 7),  # 3: exit
        ("s_waitcnt", "vmcnt(0)"),  # 4: the header
        MFMA,  # 5
        ("s_branch", "65530", 1),  # 6
        ("s_endpgm", ""),
    )
    assert loop.header == 16
    assert [i.offset for i in cover.walk(loop)] == [16, 20, 24, 4, 8, 12]
    # The load at 1 is followed by the MFMA at 2, then (4) the header's wait.
    assert cover.cover(loop, "gfx942")["count"] == 1


def test_a_loop_without_global_loads_has_no_cover():
    loop = _loop(("s_mov_b32", "s0, 0"), MFMA, ("s_cbranch_scc1", "65534", 1), ("s_endpgm", ""))
    assert cover.cover(loop, "gfx942") is None


def test_an_arch_outside_the_table_is_named():
    loop = _loop(("s_mov_b32", "s0, 0"), MFMA, ("s_cbranch_scc1", "65534", 1), ("s_endpgm", ""))
    with pytest.raises(ValueError, match="gfx000"):
        cover.cover(loop, "gfx000")


# One kernel as llvm-objdump prints it: a loop of 2 MFMAs of 32x32x8 (8192
# MACs each), 2 loads, a wait, 2 s_nop hints, 3 other instructions.
TEXT = """
k.hsaco:\tfile format elf64-amdgpu

Disassembly of section .text:

0000000000001700 <k>:
\ts_mov_b32 s0, 0                                            // 000000001700: BE800080
\tglobal_load_dwordx4 v[20:23], v[24:25], off                // 000000001704: DC5C0000 147F0018
\tglobal_load_dwordx4 v[26:29], v[24:25], off offset:64      // 00000000170C: DC5C0040 1A7F0018
\tv_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15] // 000000001714: D3D40000 04022510
\ts_nop 1                                                    // 00000000171C: BF800001
\ts_waitcnt vmcnt(1)                                         // 000000001720: BF8C0F71
\tv_mfma_f32_32x32x8_f16 v[0:15], v[20:21], v[26:27], v[0:15] // 000000001724: D3D40000 04023514
\ts_nop 0                                                    // 00000000172C: BF800000
\tv_add_u32_e32 v24, 0x80, v24                               // 000000001730: 683030FF 00000080
\ts_add_i32 s0, s0, 1                                        // 000000001738: 81008100
\ts_cbranch_scc1 65521                                       // 00000000173C: BF85FFF1 <k+0x4>
\ts_endpgm                                                   // 000000001740: BF810000
"""


def test_the_main_loop_figures_of_loop_metrics():
    loop = metrics.main_loop(TEXT, "k", "gfx942")
    assert loop["instructions"] == 10 and loop["scheduling_hints"] == 2
    assert loop["loop_instructions"] == 8
    assert loop["matrix"]["macs"] == 2 * 32 * 32 * 8
    # (8 - 2 matrix) non-matrix over 16384 / 4096 = 4 units.
    assert loop["non_matrix_per_4096_macs"] == "1.50"
    # Load A: at vmcnt(1) B has issued after it: 1 MFMA. Load B: nothing after
    # it at vmcnt(1); wrapping, A of the next iteration issues, but no wait
    # follows before B: both MFMAs.
    assert loop["cover"] == {
        "count": 1,
        "of": 2,
        "load": 4,
        "loads": [{"offset": 4, "count": 1}, {"offset": 12, "count": 2}],
    }
