"""DPP forms on hand-computed lane permutations: every control LLVM emits for a lane.bpermute by a constant
xor (quad_perm, row_ror, row_xmask), the row shifts' invalid lanes (bound_ctrl:1 reads 0, otherwise the lane
keeps its value), row and bank masks, EXEC on the source lanes, and the refusals; and the wrexec form of an
if's else (s_and_not1_wrexec_b32, s_andn2_wrexec_b64)."""

import numpy as np
import pytest

from emu import state, testing
from emu.errors import Unimplemented


def _wave(arch, lines, exec_bits=None):
    wg = testing.workgroup(arch, lines)
    w = wg.waves[0]
    w.v[:, 0] = np.arange(w.lanes, dtype=np.uint32) * 10  # lane l holds 10 l
    w.v[:, 1] = 7  # the destination's old value
    if exec_bits is not None:
        w.set_exec(exec_bits)
    testing.run(wg)
    return w


def _read(w, register):
    return [int(x) for x in w.v[:, register]]


@pytest.mark.parametrize(
    "control,source",
    [
        ("quad_perm:[1,0,3,2]", lambda l: l ^ 1),
        ("quad_perm:[2,3,0,1]", lambda l: l ^ 2),
        ("quad_perm:[3,3,0,0]", lambda l: l - l % 4 + (3, 3, 0, 0)[l % 4]),
        ("row_ror:8", lambda l: l ^ 8),
        ("row_ror:1", lambda l: l - l % 16 + (l % 16 - 1) % 16),
    ],
)
def test_every_lane_reads_its_source_in_the_row(control, source):
    w = _wave("gfx942", [f"v_mov_b32_dpp v1, v0 {control} row_mask:0xf bank_mask:0xf bound_ctrl:1"])
    assert _read(w, 1) == [10 * source(l) for l in range(64)]


@pytest.mark.parametrize("arch", ["gfx1201", "gfx942"])
def test_a_dpp_add_takes_src0_from_the_source_lane_and_src1_from_its_own(arch):
    lines = [
        "v_cvt_f32_u32_e32 v2, v0",
        "v_mov_b32_e32 v3, v2",
        "v_add_f32_dpp v3, v2, v3 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf bound_ctrl:1",
    ]
    w = _wave(arch, lines)
    got = w.v[:, 3].view(np.float32)
    lane = np.arange(w.lanes)
    np.testing.assert_array_equal(got, (10 * (lane ^ 2) + 10 * lane).astype(np.float32))


def test_row_xmask_on_gfx12():
    w = _wave("gfx1201", ["v_mov_b32_dpp v1, v0 row_xmask:4 row_mask:0xf bank_mask:0xf bound_ctrl:1"])
    assert _read(w, 1) == [10 * (l ^ 4) for l in range(32)]


def test_a_row_shift_reads_zero_past_the_row_with_bound_ctrl_and_keeps_the_lane_without():
    w = _wave(
        "gfx942",
        [
            "v_mov_b32_dpp v1, v0 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1",
            "v_mov_b32_e32 v2, 7",
            "v_mov_b32_dpp v2, v0 row_shl:2 row_mask:0xf bank_mask:0xf",
        ],
    )
    assert _read(w, 1)[:17] == [0] + [10 * l for l in range(15)] + [0]
    assert _read(w, 2)[:16] == [10 * (l + 2) for l in range(14)] + [7, 7]


def test_row_and_bank_masks_leave_lanes_unwritten():
    w = _wave("gfx942", ["v_mov_b32_dpp v1, v0 quad_perm:[0,1,2,3] row_mask:0x2 bank_mask:0x1 bound_ctrl:1"])
    want = [10 * l if l // 16 == 1 and l % 16 < 4 else 7 for l in range(64)]
    assert _read(w, 1) == want


def test_a_source_lane_outside_exec_reads_zero():
    w = _wave("gfx942", ["v_mov_b32_dpp v1, v0 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1"], 0b0111)
    assert _read(w, 1)[:4] == [10, 0, 0, 7]  # lane 2 reads lane 3, outside EXEC; lane 3 is not written


@pytest.mark.parametrize(
    "line,why",
    [
        ("v_mov_b32_dpp v1, v0 row_bcast:15 row_mask:0xa bank_mask:0xf", "modifier row_bcast"),
        ("v_cmp_lt_f32_dpp vcc, v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", "v_cmp_lt_f32_dpp"),
    ],
)
def test_what_is_not_implemented_is_refused_by_name(line, why):
    wg = testing.workgroup("gfx942", [line])
    with pytest.raises(Unimplemented, match=why):
        testing.run(wg)


@pytest.mark.parametrize(
    "arch,lines,sdst",
    [
        ("gfx1201", ["s_mov_b32 s1, 0xff", "s_mov_b32 exec_lo, 0x0f", "s_and_not1_wrexec_b32 s1, s1"], 0xF0),
        ("gfx942", ["s_mov_b64 s[2:3], 0xff", "s_mov_b64 exec, 0x0f", "s_andn2_wrexec_b64 s[2:3], s[2:3]"], 0xF0),
    ],
)
def test_wrexec_writes_the_else_lanes_to_exec_and_the_destination(arch, lines, sdst):
    wg = testing.workgroup(arch, lines + ["v_mov_b32_e32 v1, 5"])
    w = wg.waves[0]
    testing.run(wg)
    assert (w.exec_bits, w.scc) == (sdst, 1)
    assert w.s[1 if arch == "gfx1201" else 2] == sdst
    assert [int(x) for x in w.v[:9, 1]] == [state.POISON] * 4 + [5] * 4 + [state.POISON]
