"""The main-loop counts of kernels whose loops are known by construction,
read from each real LLVM's code object and llvm-objdump.

Each kernel's run-time loop holds, per iteration, exactly: LOADS 16-byte
global loads, each stored to LDS (16 bytes), one barrier, READS fragment
reads from LDS (one fragment each, at lane-distinct bases so that LLVM cannot
pair them), and MMAS matrix ops; no control flow. LLVM 23 and 24 unroll such a
loop 4 times (a remainder loop follows), so the machine loop covers U
iterations; U is read from the barriers, one per iteration by construction,
and every other count must be U times the construction.
"""

import pytest

from arch import arch as archs
from ir import mma as M
from ir import types as T
from ir.builder import KernelBuilder
from isa import analyze
from toolchains.llvm.llvm import Toolchain

OP = "mma_16x16x16_f16_f32"
LOADS, READS, MMAS = 3, 2, 5
V16 = T.vector(T.F16, 8)  # 16 bytes


def _body(b, src, lds, iv, lane, wave, frag, acc):
    for g in b.unroll(LOADS):
        x = b.load(b.offset(src, b.mul(b.add(b.add(b.mul(iv, LOADS * 2 * wave), g * wave), lane), 16)), V16)
        b.store(b.offset(lds, b.mul(b.add(lane, g * wave), 16)), x)
    b.barrier()
    frags = [b.load(b.offset(lds, b.mul(b.xor(lane, r), frag.nbytes)), frag) for r in range(READS)]
    for i in b.unroll(MMAS):
        acc = b.mma(OP, frags[i % READS], frags[(i + 1) % READS], acc)
    return acc


def kernel(arch, nested=False, copy_loop_first=False):
    """The constructed kernel on `arch`; `nested` puts its loop inside another,
    `copy_loop_first` adds a loop without matrix ops before it."""
    info = archs.get(arch)
    a_t, _, c_t = M.fragment_types(OP, info.generation)
    wave = info.wave_sizes[0]
    b = KernelBuilder("constructed", arch=arch, workgroup_size=(2 * wave, 1, 1))  # two waves: the barrier stays
    src, dst, n = b.arg("src", T.GLOBAL), b.arg("dst", T.GLOBAL), b.arg("n", T.I32)
    lane = b.lane_id()
    lds = b.lds_alloc(LOADS * wave * 16)
    if copy_loop_first:
        with b.for_range(0, n, 1) as loop:
            at = b.mul(b.add(b.mul(loop.iv, wave), lane), 4)
            b.store(b.offset(dst, at), b.load(b.offset(src, at), T.F32))
    acc = b.build([b.const(0.0, T.F32)] * c_t.n)
    if nested:
        with b.for_range(0, n, 1, [acc]) as outer:
            with b.for_range(0, n, 1, [outer.iters[0]]) as loop:
                b.yield_(_body(b, src, lds, b.add(loop.iv, outer.iv), lane, wave, a_t, loop.iters[0]))
            b.yield_(loop.results[0])
        result = outer.results[0]
    else:
        with b.for_range(0, n, 1, [acc]) as loop:
            b.yield_(_body(b, src, lds, loop.iv, lane, wave, a_t, loop.iters[0]))
        result = loop.results[0]
    b.store_wide(b.offset(dst, b.mul(lane, c_t.nbytes)), result)
    return b.finish(), a_t


@pytest.fixture(scope="module")
def tc():
    return Toolchain.current()


def _main_loop(tc, kernel):
    return analyze.report(kernel, tc)["main_loop"]


def _memory(m):
    return {r["mnemonic"]: (r["count"], r["bytes"]) for r in m["by_mnemonic"]}


# gfx942: MFMA, wave64, s_waitcnt; gfx1201: WMMA, wave32, gfx12's s_wait_loadcnt.
@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
def test_counts_are_the_construction_times_the_unroll(tc, arch):
    kernel_, frag = kernel(arch)
    report = analyze.report(kernel_, tc)
    loop = report["main_loop"]
    u = loop["barriers"]
    assert u >= 1
    assert loop["matrix"]["count"] == u * MMAS
    assert [r["mnemonic"].startswith(("v_mfma", "v_wmma")) for r in loop["matrix"]["by_mnemonic"]] == [True]
    assert loop["global_loads"]["count"] == u * LOADS
    assert {r["bytes"] for r in loop["global_loads"]["by_mnemonic"]} == {V16.nbytes}
    assert loop["global_loads"]["bytes"] == u * LOADS * V16.nbytes
    assert loop["lds_writes"]["count"] == u * LOADS
    assert {r["bytes"] for r in loop["lds_writes"]["by_mnemonic"]} == {V16.nbytes}
    assert loop["lds_reads"]["count"] == u * READS
    assert {r["bytes"] for r in loop["lds_reads"]["by_mnemonic"]} == {frag.nbytes}
    # Each iteration's LDS stores need all its loads: one wait for vmcnt(0) each.
    assert loop["waits"]["vmcnt0"] == u
    # No control flow in the body: the back edge is the one branch, exec is never written.
    assert loop["branches"] == 1
    assert loop["exec_writes"] == 0
    assert loop["depth"] == 1 and loop["blocks"] == 1
    # Two waves per workgroup; every LDS access keeps its lanes on distinct
    # banks (consecutive 16-byte stores; reads at lane ^ r stay in their pass).
    assert report["resources"]["waves_per_workgroup"] == 2
    model = report["lds_banks"]
    assert (model["modelled"], model["not_modelled"], model["conflicted"], model["worst_ways"]) == (
        LOADS + READS,
        0,
        0,
        1,
    )


def test_the_main_loop_is_the_one_with_matrix_ops(tc):
    kernel_, _ = kernel("gfx942", copy_loop_first=True)
    loop = _main_loop(tc, kernel_)
    assert loop["loops"] >= 2
    assert loop["matrix"]["count"] == loop["barriers"] * MMAS > 0


def test_a_nested_main_loop_is_the_inner_one(tc):
    kernel_, _ = kernel("gfx942", nested=True)
    loop = _main_loop(tc, kernel_)
    assert loop["depth"] == 2
    assert loop["matrix"]["count"] == loop["barriers"] * MMAS > 0
