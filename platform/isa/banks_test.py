"""The LDS bank model on accesses whose conflicts are known by construction
(expected figures worked out by hand in the comments, from the banks of
archs.json: 32 on gfx942, 64 on gfx950, 4 bytes each)."""

import pytest

from arch import arch as archs
from ir import types as T
from ir.builder import KernelBuilder
from isa import banks


def _model(b):
    k = b.finish()
    lds = archs.lds_banks(k.attrs["arch"])
    return banks.model(k, lds.count, lds.bytes)


def _read(arch, address, type_=T.F32, lanes=64):
    """One LDS read of `type_` at address(b, lane) bytes, in a workgroup of `lanes`."""
    b = KernelBuilder("k", arch=arch, workgroup_size=(lanes, 1, 1))
    out = b.arg("out", T.GLOBAL)
    lds = b.lds_alloc(8192)
    tid = b.thread_id(0)
    v = b.load(b.offset(lds, address(b, tid)), type_)
    b.store(b.offset(out, b.mul(tid, type_.nbytes)), v)
    return _model(b)


def _figures(model):
    (a,) = model["accesses"]
    return a["cycles"], a["ideal"], a["ways"]


@pytest.mark.parametrize(
    "arch, address, type_, expected",
    [
        # b32, consecutive: a pass of 32 lanes covers 32 banks once; 2 passes.
        ("gfx942", lambda b, t: b.mul(t, 4), T.F32, (2, 2, 1)),
        # b32, 128-byte stride: the 32 lanes of a pass hit bank 0, each its own dword.
        ("gfx942", lambda b, t: b.mul(t, 128), T.F32, (64, 2, 32)),
        # every lane the same dword: a broadcast, no conflict.
        ("gfx942", lambda b, t: b.mul(t, 0), T.F32, (2, 2, 1)),
        # b64, consecutive: 16 lanes per pass, 32 dwords in 32 banks; 4 passes.
        ("gfx942", lambda b, t: b.mul(t, 8), T.vector(T.F32, 2), (4, 4, 1)),
        # b128, 64-byte stride: 8 lanes per pass; lanes 0, 2, 4, 6 share banks 0-3.
        ("gfx942", lambda b, t: b.mul(t, 64), T.vector(T.F32, 4), (32, 8, 4)),
        # gfx950, 64 banks: b32 with a 128-byte stride lands on banks 0 and 32 only.
        ("gfx950", lambda b, t: b.mul(t, 128), T.F32, (32, 1, 32)),
        # u16 reads two lanes to a dword: 32 lanes per pass, 16 dwords; 2 passes.
        ("gfx942", lambda b, t: b.mul(t, 2), T.F16, (2, 2, 1)),
    ],
)
def test_conflicts_of_known_patterns(arch, address, type_, expected):
    assert _figures(_read(arch, address, type_)) == expected


def test_wave32_on_gfx1201():
    # 32 banks, wave32: one pass of 32 lanes; an 8-byte stride puts 2 lanes on each even bank.
    assert _figures(_read("gfx1201", lambda b, t: b.mul(t, 8), lanes=32)) == (2, 1, 2)


def test_the_worst_wave_is_reported():
    # Wave 0 reads consecutively, wave 1 with a 128-byte stride (32-way).
    address = lambda b, t: b.select(b.cmp("lt", t, 64), b.mul(t, 4), b.mul(t, 128))  # noqa: E731
    assert _figures(_read("gfx942", address, lanes=128)) == (64, 2, 32)


def test_lanes_a_known_condition_disables_take_no_part():
    b = KernelBuilder("k", arch="gfx942", workgroup_size=(64, 1, 1))
    lds = b.lds_alloc(8192)
    tid = b.thread_id(0)
    with b.if_(b.cmp("lt", tid, 16)):
        b.store(b.offset(lds, b.mul(tid, 128)), b.const(1.0, T.F32))
    (a,) = _model(b)["accesses"]
    # 16 active lanes, all in bank 0: one pass of 16 cycles.
    assert (a["cycles"], a["ideal"], a["ways"], a["access"], a["all_lanes_assumed"]) == (16, 1, 16, "write", False)


def test_an_unknown_condition_assumes_all_lanes():
    b = KernelBuilder("k", arch="gfx942", workgroup_size=(64, 1, 1))
    n = b.arg("n", T.I32)
    lds = b.lds_alloc(8192)
    tid = b.thread_id(0)
    with b.if_(b.cmp("lt", tid, n)):
        b.store(b.offset(lds, b.mul(tid, 4)), b.const(1.0, T.F32))
    (a,) = _model(b)["accesses"]
    assert a["modelled"] and a["all_lanes_assumed"] and (a["cycles"], a["ways"]) == (2, 1)


def test_what_the_model_cannot_know_is_named():
    b = KernelBuilder("k", arch="gfx942", workgroup_size=(64, 1, 1))
    n, src = b.arg("n", T.I32), b.arg("src", T.GLOBAL)
    lds = b.lds_alloc(8192)
    tid = b.thread_id(0)
    b.store(b.offset(lds, b.mul(b.add(tid, n), 4)), b.const(1.0, T.F32))
    b.store(b.offset(lds, b.mul(b.add(tid, b.block_id(0)), 4)), b.const(1.0, T.F32))
    b.store(b.offset(lds, b.load(b.offset(src, b.mul(tid, 4)), T.I32)), b.const(1.0, T.F32))
    with b.for_range(0, 4, 1) as loop:
        b.store(b.offset(lds, b.mul(b.add(tid, loop.iv), 4)), b.const(1.0, T.F32))
        b.store(b.offset(lds, b.mul(tid, 4)), b.const(2.0, T.F32))
    m = _model(b)
    reasons = [a["reason"] for a in m["accesses"]]
    assert reasons == [
        "the address depends on kernel argument n",
        "the address depends on the result of gpu.block_id",
        "the address depends on the result of mem.load",
        "the address depends on a loop's induction variable or carried value",
        None,
    ]
    assert [a["loop_depth"] for a in m["accesses"]] == [0, 0, 0, 1, 1]
    assert (m["modelled"], m["not_modelled"], m["conflicted"], m["worst_ways"]) == (1, 4, 0, 1)


def test_no_lds_access():
    b = KernelBuilder("k", arch="gfx942", workgroup_size=(64, 1, 1))
    out = b.arg("out", T.GLOBAL)
    b.store(b.offset(out, b.mul(b.thread_id(0), 4)), b.const(1.0, T.F32))
    m = _model(b)
    assert (m["accesses"], m["worst_ways"], m["cycles"]) == ([], None, 0)


def _loop_read(shift):
    """gfx950: a b128 read at 16 * lane + shift(b, iv) in a loop over iv."""
    b = KernelBuilder("k", arch="gfx950", workgroup_size=(64, 1, 1))
    out = b.arg("out", T.GLOBAL)
    lds = b.lds_alloc(16384)
    tid = b.thread_id(0)
    with b.for_range(0, 4, 1) as loop:
        v = b.load(b.offset(b.offset(lds, shift(b, loop.iv, tid)), b.mul(tid, 16)), T.vector(T.F32, 4))
        b.store(b.offset(out, b.mul(tid, 16)), v)
    (a,) = _model(b)["accesses"]
    return a


def test_a_uniform_shift_of_whole_dwords_is_modelled():
    # A double-buffered tile's offset, (iv % 2) * 8192: the same in every
    # lane, a multiple of 8192. b128 on 64 banks: 16 lanes a pass, 4 passes.
    a = _loop_read(lambda b, iv, tid: b.mul(b.rem(iv, 2), 8192))
    assert a["modelled"] and a["uniform_shift"] == 8192 and (a["cycles"], a["ideal"], a["ways"]) == (4, 4, 1)


def test_a_uniform_shift_not_known_to_be_whole_dwords_is_not_modelled():
    a = _loop_read(lambda b, iv, tid: b.mul(iv, 2))
    assert (
        not a["modelled"]
        and a["reason"]
        == "the address depends on a loop's induction variable or carried value, the same in every lane but not known to be a multiple of 4 bytes"
    )


def test_a_shift_that_differs_between_lanes_is_not_modelled():
    a = _loop_read(lambda b, iv, tid: b.mul(iv, tid))
    assert not a["modelled"] and a["reason"] == "the address depends on a loop's induction variable or carried value"


def test_a_direct_load_writes_16_bytes_a_lane_from_its_waves_address():
    # mem.load_to_lds: lane L of each wave writes at the wave's address + 16 L
    # (here wave w's 1 KiB, through readfirstlane as the tile does): 4 passes
    # of 16 lanes on 64 banks, no conflict.
    b = KernelBuilder("k", arch="gfx950", workgroup_size=(128, 1, 1))
    src = b.arg("src", T.GLOBAL)
    lds = b.lds_alloc(2048)
    tid = b.thread_id(0)
    b.load_to_lds(b.offset(src, b.mul(tid, 16)), b.offset(lds, b.readfirstlane(b.mul(b.div(tid, 64), 1024))))
    (a,) = _model(b)["accesses"]
    assert (a["access"], a["bytes"], a["modelled"], a["uniform_shift"]) == ("write", 16, True, None)
    assert (a["cycles"], a["ideal"], a["ways"]) == (4, 4, 1)
