"""The dynamic figures on accesses whose costs are known by hand: LDS bank
cycles under archs.json's banks (gfx942: 32 banks of 4 bytes; a b32 access
is served 32 lanes a pass) and the 64- and 128-byte segments global memory
accesses touch."""

import numpy as np

from emu import testing


def _run(lines, setup):
    wg = testing.workgroup("gfx942", lines, lds=65536, figures=True)
    setup(wg)
    testing.run(wg)
    return wg.figures


def test_lds_bank_cycles():
    def setup(wg):
        lane = np.arange(64, dtype=np.uint32)
        wg.waves[0].v[:, 1] = lane * 4  # consecutive dwords: every bank once a pass
        wg.waves[0].v[:, 2] = lane * 128  # 32 dwords apart: a pass's 32 lanes all in bank 0
        wg.waves[0].v[:, 3] = 0  # one dword for every lane: a broadcast

    f = _run(["ds_read_b32 v4, v1", "ds_read_b32 v5, v2", "ds_write_b32 v3, v1", "s_waitcnt lgkmcnt(0)"], setup)
    conflict_free, strided, broadcast = (f.lds[0x1000 + 4 * i] for i in range(3))
    assert conflict_free == [1, 2, 2, 1]  # executions, cycles, ideal, worst ways
    assert strided == [1, 64, 2, 32]
    assert broadcast == [1, 2, 2, 1]


def test_global_memory_segments():
    def setup(wg):
        base = wg.memory.place(np.zeros(64 * 64, np.uint32))
        w = wg.waves[0]
        w.s[0], w.s[1] = base & 0xFFFFFFFF, base >> 32
        w.v[:, 2] = np.arange(64, dtype=np.uint32) * 4  # 256 contiguous bytes
        w.v[:, 3] = np.arange(64, dtype=np.uint32) * 256  # a dword every 256 bytes

    f = _run(["global_load_dword v4, v2, s[0:1]", "global_load_dword v5, v3, s[0:1]", "s_waitcnt vmcnt(0)"], setup)
    assert f.memory[0x1000] == [1, 256, 4, 2]  # executions, bytes, 64-byte and 128-byte segments
    assert f.memory[0x1004] == [1, 256, 64, 64]
