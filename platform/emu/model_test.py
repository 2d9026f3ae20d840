"""The performance model on hand-built instruction streams whose time is
computed here by hand from perf_model.json's figures: one MFMA-bound, one
DRAM-bandwidth-bound; and the trace the model reads (what each wait
retired, barriers)."""

import numpy as np
import pytest

from arch import arch as archs
from arch import perf_model
from emu import model, testing
from emu import trace as tracing

MFMA = "v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15]"


def _traced(arch, lines, waves=1, setup=None):
    wg = testing.workgroup(arch, lines, waves=waves, figures=True)
    if setup:
        setup(wg)
    testing.run(wg, trace=True)
    return wg.program, tracing.collect([[w.trace for w in wg.waves]], wg.figures)


def _addresses(wg, nbytes):
    """v[2:3] of every lane: its own 16 bytes of a fresh buffer."""
    base = wg.memory.place(np.zeros(nbytes, np.uint8))
    address = base + np.arange(64, dtype=np.uint64) * 16
    for w in wg.waves:
        w.v[:, 2] = (address & 0xFFFFFFFF).astype(np.uint32)
        w.v[:, 3] = (address >> 32).astype(np.uint32)


def test_mfma_bound_stream():
    # One wave, 100 MFMAs back to back on one workgroup: the matrix pipe of one SIMD is busy
    # for 100 x passes x cycles per pass, nothing else costs more.
    facts = perf_model.get("gfx942")
    program, trace = _traced("gfx942", [MFMA] * 100)
    e = model.estimate(program, trace, grid=(1, 1, 1), waves_per_simd=8, dram_bytes=0)
    cycles = 100 * 8 * 4  # the CDNA3 ISA guide's 8 passes of 4 cycles (perf_model.json says the same)
    assert facts.matrix_passes["v_mfma_f32_32x32x8_f16"] * facts.cycles_per_pass == 32
    assert e.cu_cycles == cycles
    assert e.microseconds == pytest.approx(cycles / 2100)
    assert e.bound == "matrix"
    assert e.flops == 100 * 2 * 32 * 32 * 8
    # One SIMD of one CU at full rate: its share of the part's peak.
    simds = archs.registers("gfx942").eus_per_cu
    assert e.fraction_of_peak == pytest.approx(1 / (simds * archs.get("gfx942").cus), rel=1e-3)


def test_bandwidth_bound_stream():
    # A copy: each workgroup loads 1 KiB and stores it, a million workgroups, 2 GB from and to DRAM.
    lines = [
        "global_load_dwordx4 v[4:7], v[2:3], off",
        "s_waitcnt vmcnt(0)",
        "global_store_dwordx4 v[2:3], v[4:7], off",
    ]
    program, trace = _traced("gfx942", lines, setup=lambda wg: _addresses(wg, 1024))
    dram = 2 * 1024 * 1_000_000
    e = model.estimate(program, trace, grid=(1_000_000, 1, 1), waves_per_simd=8, dram_bytes=dram)
    assert e.microseconds == pytest.approx(dram / 5.3e12 * 1e6)  # the MI300X's 5.3 TB/s
    assert e.bound == "memory bandwidth"
    assert e.fraction_of_peak == pytest.approx(1.0)
    assert e.times["compute"] < e.microseconds and e.l2_bytes == dram


def test_trace_says_what_each_wait_retired():
    lines = [
        "global_load_dwordx4 v[4:7], v[2:3], off",
        "global_load_dwordx4 v[8:11], v[2:3], off",
        "s_waitcnt vmcnt(1)",
        "s_waitcnt vmcnt(0)",
    ]
    _, trace = _traced("gfx942", lines, setup=lambda wg: _addresses(wg, 1024))
    (events,) = trace.workgroups[0]
    assert events == [(0, 1, ()), (1, 1, ()), (2, 0, (0,)), (3, 0, (1,)), (4, 0, ())]
    assert trace.memory[0x1000] == (1, 1024, 8)  # executions, bytes, 128-byte segments


def test_latency_of_a_load_its_wait_exposes():
    # One load, its wait, one VALU: the wave waits the load's latency after its issue cost.
    facts = perf_model.get("gfx942")
    lines = ["global_load_dwordx4 v[4:7], v[2:3], off", "s_waitcnt vmcnt(0)", "v_add_u32_e32 v4, v4, v4"]
    program, trace = _traced("gfx942", lines, setup=lambda wg: _addresses(wg, 1024))
    e = model.estimate(program, trace, grid=(1, 1, 1), waves_per_simd=8, dram_bytes=0)
    issue = 1024 // facts.vmem_bytes_per_cycle  # 1 KiB over the CU's vector memory path
    ready = issue + facts.latency_cycles["vmem"]
    # the wait passes at `ready`; the VALU issues a slot later and holds the SIMD 64 / 16 cycles
    assert e.cu_cycles == ready + facts.issue_cycles + 64 // facts.valu_lanes_per_cycle
    assert e.bound == "tail"  # one workgroup on one of 304 CUs, its pipes mostly idle


def test_barrier_holds_the_early_wave():
    # Hand-built traces of two waves (on two SIMDs) of one program: wave 0 runs 10 MFMAs before the
    # barrier, wave 1 none; wave 1's MFMA after it waits for wave 0 to arrive.
    program = testing.workgroup("gfx942", [MFMA, "s_barrier"]).program  # 0: MFMA, 1: barrier, 2: s_endpgm
    early = [(1, 0, ()), (0, 0, ()), (2, 0, ())]
    late = [(0, 0, ())] * 10 + [(1, 0, ()), (2, 0, ())]
    trace = tracing.Trace(workgroups=[[late, early]], lds={}, memory={})
    e = model.estimate(program, trace, grid=(1, 1, 1), waves_per_simd=8, dram_bytes=0)
    # Wave 0 issues its MFMAs 32 cycles apart (the pipe) and reaches the barrier a slot after the
    # 10th issues: 9 x 32 + 4; wave 1's MFMA then takes 32 cycles.
    assert e.cu_cycles == 9 * 32 + 4 + 32


def test_an_arch_without_figures_is_named():
    with pytest.raises(perf_model.PerfModelError, match=r"no figures for 'gfx1100'; perf_model.json has gfx1201"):
        perf_model.get("gfx1100")


def test_an_rdna_grid_spreads_over_its_wgps():
    # gfx1201's 64 CUs are 32 WGPs of 4 SIMDs (archs.json's eus_per_cu is per WGP on RDNA):
    # 96 one-wave workgroups (one VALU instruction each) run 3 on the busiest WGP, which holds 4
    # at once at one wave per SIMD; they fill the 32 WGPs with no tail.
    facts = perf_model.get("gfx1201")
    assert facts.cus_per_wgp == 2 and archs.get("gfx1201").cus == 64
    program, trace = _traced("gfx1201", ["v_add_u32_e32 v4, v4, v4"])
    e = model.estimate(program, trace, grid=(96, 1, 1), waves_per_simd=1, dram_bytes=0)
    assert e.per_cu == 96 // 32
    assert e.resident == 4
    assert e.shares["tail"] == 0
