"""Memory semantics on hand-computed values: buffer range checks, waits and
poison, LDS ordering between waves around barriers, LDS range, direct-to-LDS
loads, the transposing LDS read, scratch, atomics, faults."""

import numpy as np
import pytest

from emu import state, testing
from emu.errors import ExecutionError, MemoryFault

GFX9_RAW = 0x00020000  # buffer resource word 3 (platform/arch/flavor_facts.json, gfx9)


def _rsrc(w, first, address, records, word3=GFX9_RAW):
    w.s[first : first + 4] = [address & 0xFFFFFFFF, address >> 32, records, word3]


def test_buffer_range_check_per_dword():
    wg = testing.workgroup(
        "gfx942",
        [
            "buffer_load_dwordx4 v[4:7], v0, s[4:7], 0 offen",
            "buffer_load_ushort v8, v1, s[4:7], 0 offen",
            "buffer_store_dword v2, v0, s[4:7], 0 offen offset:8",
            "s_waitcnt vmcnt(0)",
        ],
    )
    w = wg.waves[0]
    base = wg.memory.place(np.arange(32, dtype=np.uint8))  # byte i holds i
    _rsrc(w, 4, base, 24)  # the buffer's last 8 bytes are out of range
    w.v[:, 0] = [0, 8, 16, 24] * 16  # dwordx4 at 16: the dwords at 16 and 20 in range, 24 and 28 out
    w.v[:, 1] = [22, 23, 21, 0] * 16  # a short at 23 ends at byte 25: out of range
    w.v[:, 2] = 0xEEEEEEEE
    w.set_exec(0b1111)
    testing.run(wg)
    d = [0x03020100, 0x07060504, 0x0B0A0908, 0x0F0E0D0C, 0x13121110, 0x17161514]
    assert [list(w.v[lane, 4:8]) for lane in range(4)] == [d[0:4], d[2:6], [d[4], d[5], 0, 0], [0, 0, 0, 0]]
    assert list(w.v[:4, 8]) == [0x1716, 0, 0x1615, 0x0100]
    stored = wg.memory.buffer(base).view(np.uint32)
    # stores at 8, 16, 24 and 32: the last two are out of range (24 + 4 > 24) and dropped
    assert list(stored) == [d[0], d[1], 0xEEEEEEEE, d[3], 0xEEEEEEEE, d[5], 0x1B1A1918, 0x1F1E1D1C]


def test_load_is_poison_until_waited():
    wg = testing.workgroup(
        "gfx942",
        [
            "global_load_dword v2, v[0:1], off",
            "global_load_dword v3, v[0:1], off offset:4",
            "v_mov_b32_e32 v4, v2",  # too early: poison
            "s_waitcnt vmcnt(1)",  # lands the first load only
            "v_mov_b32_e32 v5, v2",
            "v_mov_b32_e32 v6, v3",
            "s_waitcnt vmcnt(0)",
            "v_mov_b32_e32 v7, v3",
        ],
    )
    w = wg.waves[0]
    base = wg.memory.place(np.array([11, 22], np.uint32))
    w.v[:, 0], w.v[:, 1] = base & 0xFFFFFFFF, base >> 32
    testing.run(wg)
    assert [int(w.v[0, r]) for r in (4, 5, 6, 7)] == [state.POISON, 11, state.POISON, 22]
    assert w.waits == [(0x100C, 1), (0x1018, 1)]


def test_scalar_load_waits_on_lgkmcnt():
    wg = testing.workgroup(
        "gfx942", ["s_load_dwordx2 s[2:3], s[0:1], 0x4", "s_mov_b32 s4, s2", "s_waitcnt lgkmcnt(0)", "s_mov_b32 s5, s3"]
    )
    w = wg.waves[0]
    base = wg.memory.place(np.array([1, 2, 3], np.uint32))
    w.s[0], w.s[1] = base & 0xFFFFFFFF, base >> 32
    testing.run(wg)
    assert (w.s[4], w.s[5]) == (state.POISON, 3)


def _lds_exchange(wait_before_barrier):
    lines = (
        [
            "v_mov_b32_e32 v1, 0",
            "s_cmp_eq_u32 s10, 0",
            "s_cbranch_scc0 2",  # wave 1 skips the write
            "v_mov_b32_e32 v2, 42",
            "ds_write_b32 v1, v2",
        ]
        + (["s_waitcnt lgkmcnt(0)"] if wait_before_barrier else ["s_nop 0"])
        + [
            "s_barrier",
            "ds_read_b32 v3, v1",
            "s_waitcnt lgkmcnt(0)",
        ]
    )
    wg = testing.workgroup("gfx942", lines, waves=2)
    wg.waves[1].s[10] = 1
    testing.run(wg)
    return int(wg.waves[1].v[0, 3])


def test_barrier_orders_lds_only_after_the_wait():
    assert _lds_exchange(True) == 42
    assert _lds_exchange(False) == 0  # the write had not left wave 0 when wave 1 read


def test_barrier_order_between_waves():
    # Each wave adds its id+1 to LDS word 0 in turn, after a barrier per step:
    # wave 1 reads what wave 0 wrote before the barrier.
    lines = [
        "v_mov_b32_e32 v1, 0",
        "s_cmp_eq_u32 s10, 0",
        "s_cbranch_scc0 3",
        "v_mov_b32_e32 v2, 5",
        "ds_write_b32 v1, v2",
        "s_waitcnt lgkmcnt(0)",
        "s_barrier",
        "ds_read_b32 v3, v1",
        "s_waitcnt lgkmcnt(0)",
    ]
    wg = testing.workgroup("gfx942", lines, waves=2)
    wg.waves[1].s[10] = 1
    testing.run(wg)
    assert int(wg.waves[1].v[0, 3]) == 5 and int(wg.waves[0].v[0, 3]) == 5


def test_an_ended_wave_does_not_hold_a_barrier():
    # Wave 1 skips the first barrier and ends: wave 0 passes both.
    wg = testing.workgroup(
        "gfx942", ["s_cmp_eq_u32 s10, 0", "s_cbranch_scc0 1", "s_barrier", "s_barrier", "s_mov_b32 s11, 1"], waves=2
    )
    wg.waves[1].s[10] = 1
    testing.run(wg)
    assert [w.done for w in wg.waves] == [True, True] and wg.waves[0].s[11] == 1


def test_gfx12_split_barrier_blocks_until_all_signal():
    lines = [
        "v_mov_b32_e32 v1, 0",
        "s_cmp_eq_u32 s10, 0",
        "s_cbranch_scc0 3",
        "v_mov_b32_e32 v2, 9",
        "ds_store_b32 v1, v2",
        "s_wait_dscnt 0x0",
        "s_barrier_signal -1",
        "s_barrier_wait 0xffff",
        "ds_load_b32 v3, v1",
        "s_wait_dscnt 0x0",
    ]
    wg = testing.workgroup("gfx1201", lines, waves=2)
    wg.waves[1].s[10] = 1
    testing.run(wg)
    assert int(wg.waves[1].v[0, 3]) == 9


def test_lds_out_of_range_reads_zero_and_drops_writes():
    wg = testing.workgroup(
        "gfx942",
        [
            "v_mov_b32_e32 v2, 7",
            "ds_write_b32 v0, v2",
            "ds_read_b32 v3, v0",
            "s_waitcnt lgkmcnt(0)",
        ],
        lds=256,
    )
    w = wg.waves[0]
    w.v[:, 0] = [0, 252, 254, 256] + [0] * 60
    w.set_exec(0b1111)
    testing.run(wg)
    assert list(w.v[:4, 3]) == [7, 7, 0, 0]  # an access that ends past byte 256 is out of range
    assert wg.lds[:4].view(np.uint32)[0] == 7 and w.lds_out_of_range == 4


def test_direct_to_lds_load_is_poison_until_waited():
    wg = testing.workgroup(
        "gfx950",
        [
            "s_mov_b32 m0, 64",
            "buffer_load_dwordx4 v0, s[4:7], 0 offen lds",
            "v_mov_b32_e32 v1, 64",
            "ds_read_b32 v2, v1",  # lane 0's first word, before the wait
            "s_waitcnt lgkmcnt(0)",
            "s_waitcnt vmcnt(0)",
            "ds_read_b32 v3, v1 offset:16",  # lane 1's first word: lanes are 16 bytes apart
            "s_waitcnt lgkmcnt(0)",
        ],
        lds=2048,
    )
    w = wg.waves[0]
    base = wg.memory.place(np.arange(1000, 1256, dtype=np.uint32))
    _rsrc(w, 4, base, 1024)
    w.v[:, 0] = np.arange(64, dtype=np.uint32) * 16
    testing.run(wg)
    assert int(w.v[0, 2]) == state.POISON and int(w.v[0, 3]) == 1004
    assert list(wg.lds[64 : 64 + 32].view(np.uint32)) == list(range(1000, 1008))


def test_ds_read_b64_tr_b16_transposes_each_16_lanes():
    wg = testing.workgroup("gfx950", ["ds_read_b64_tr_b16 v[2:3], v0", "s_waitcnt lgkmcnt(0)"])
    w = wg.waves[0]
    # LDS holds u16 values 0..255 in order; lane L names 8 bytes at 8 * L (values 4L..4L+3).
    wg.lds[:512] = np.arange(256, dtype=np.uint16).view(np.uint8)
    w.v[:, 0] = np.arange(64, dtype=np.uint32) * 8
    testing.run(wg)
    halves = w.v[:, 2:4].copy().view(np.uint16)
    # lane 5 of the first group: element j = the (5 % 4 = 1)-th u16 of lane 4j + 5 // 4 = 4j + 1.
    assert list(halves[5]) == [4 * (4 * j + 1) + 1 for j in range(4)]
    # lane 18 (group 2, i = 2): lanes 16 + 4j + 0, element 2.
    assert list(halves[18]) == [4 * (16 + 4 * j) + 2 for j in range(4)]


def test_scratch_is_per_lane():
    wg = testing.workgroup(
        "gfx942",
        ["scratch_store_dword off, v0, off offset:8", "scratch_load_dword v1, off, off offset:8", "s_waitcnt vmcnt(0)"],
    )
    w = wg.waves[0]
    w.v[:, 0] = np.arange(64, dtype=np.uint32) * 3
    testing.run(wg)
    assert list(w.v[:, 1]) == [3 * i for i in range(64)]


def test_atomic_add_f32_from_every_lane():
    wg = testing.workgroup("gfx942", ["global_atomic_add_f32 v[0:1], v2, off"])
    w = wg.waves[0]
    base = wg.memory.place(np.array([0.5], np.float32))
    w.v[:, 0], w.v[:, 1] = base & 0xFFFFFFFF, base >> 32
    w.v[:, 2] = np.float32(1.0).view(np.uint32)
    testing.run(wg)
    assert wg.memory.buffer(base).view(np.float32)[0] == 64.5


def test_global_access_outside_every_buffer_names_lane_and_address():
    wg = testing.workgroup("gfx942", ["global_load_dword v2, v[0:1], off offset:4"])
    w = wg.waves[0]
    base = wg.memory.place(np.zeros(64, np.uint32))
    w.v[:, 0], w.v[:, 1] = (base + 4 * np.arange(64)) & 0xFFFFFFFF, base >> 32
    with pytest.raises(
        MemoryFault,
        match=rf"^global_load_dword at 0x1000 in t: lane 63 accesses 4 bytes at 0x{base + 256:x}, "
        "outside every buffer$",
    ):
        testing.run(wg)


def test_matrix_op_under_partial_exec_is_an_error():
    wg = testing.workgroup("gfx942", ["v_mfma_f32_16x16x16_f16 v[4:7], v[0:1], v[2:3], 0"])
    wg.waves[0].set_exec(1)
    with pytest.raises(ExecutionError, match="partial EXEC"):
        testing.run(wg)


def test_ds_bpermute_reads_the_addressed_lane_and_zero_from_an_inactive_one():
    wg = testing.workgroup("gfx942", ["ds_bpermute_b32 v2, v0, v1", "s_waitcnt lgkmcnt(0)"])
    w = wg.waves[0]
    w.v[:, 0] = ((np.arange(64) ^ 16) * 4 + 256).astype(np.uint32)  # lane i ^ 16, wrapped past the wave
    w.v[:, 1] = np.arange(64, dtype=np.uint32) + 7
    testing.run(wg)
    assert [int(x) for x in w.v[:, 2]] == [(i ^ 16) + 7 for i in range(64)]


@pytest.mark.parametrize(
    "pattern,source",
    [
        ("swizzle(SWAP,16)", lambda i: i ^ 16),
        ("swizzle(REVERSE,8)", lambda i: i ^ 7),
        ("swizzle(BROADCAST,4,1)", lambda i: i - i % 4 + 1),
        ("swizzle(QUAD_PERM,3,2,1,0)", lambda i: i - i % 4 + 3 - i % 4),
        ("0x401f", lambda i: i ^ 16),  # the SWAP,16 pattern as a number
    ],
)
def test_ds_swizzle_patterns(pattern, source):
    wg = testing.workgroup("gfx942", [f"ds_swizzle_b32 v2, v1 offset:{pattern}", "s_waitcnt lgkmcnt(0)"])
    w = wg.waves[0]
    w.v[:, 1] = np.arange(64, dtype=np.uint32) * 3
    testing.run(wg)
    assert [int(x) for x in w.v[:, 2]] == [3 * source(i) for i in range(64)]
