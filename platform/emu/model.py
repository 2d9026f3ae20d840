"""A modelled time for a kernel: a MODEL, a yardstick applied equally to any
code object, not a promise of hardware time. Every latency, throughput and
peak it uses is a figure of platform/arch/perf_model.json, with its source.

    result = emu.launch(prog, ..., workgroups=sampled, trace=True)
    e = model.estimate(prog, result.trace, grid=(gx, gy, gz), waves_per_simd=occupancy, dram_bytes=footprint)
    e.microseconds, e.fraction_of_peak, e.bound

What it does:
- One CU runs the real instruction streams of the sampled workgroups (the
  trace, reused in turn): as many workgroups at once as the occupancy allows
  (waves per SIMD x SIMDs per CU over the workgroup's waves), a new one
  starting when one ends, its waves spread over the SIMDs in turn.
- Each wave issues its instructions in order, one per `issue_cycles`
  (s_nop N takes N + 1 of those slots). Each instruction holds its pipe
  for its issue cost: VALU the wave's lanes over the SIMD's width; an
  MFMA its passes x cycles per pass (a WMMA, or an MFMA without listed
  passes, its FLOPs over one SIMD's share of the part's peak); an LDS
  access its bank cycles from the run's figures; a global access its
  bytes over the CU's vector memory path; SALU and scalar loads one cycle.
  Matrix, VALU and SALU pipes are per SIMD; LDS, vector and scalar memory
  per CU. A memory operation's data is there its latency after its issue
  cost; a wait (`s_waitcnt`, gfx12's `s_wait_*`) stalls the wave until the
  operations the emulator retired there are all there. A barrier holds each
  wave until every wave of its workgroup that has not ended reached it.
  On RDNA the unit is a WGP of `cus_per_wgp` CUs sharing its SIMDs and LDS
  (archs.json's eus_per_cu and lds_per_cu are per WGP there): "CU" below
  means that unit.
- The grid spreads over the CUs in waves of workgroups: the busiest CU runs
  ceil(workgroups / CUs) of them, so a partial last wave (the tail) costs a
  whole workgroup's time.
- Memory bandwidth: the kernel cannot be faster than its DRAM bytes (the
  caller's: the buffers it reads and writes, each once) over the peak DRAM
  bandwidth, nor than the bytes all its workgroups request over the peak L2
  bandwidth (where the file has one).

The bound is "memory bandwidth" when a bandwidth time exceeds the CU's
time; else the pipe (matrix, VALU, LDS) busy at least half the CU's time
(the busiest); else "tail" when most of the device idles while the busiest
CU finishes; else "memory latency" (the pipes mostly idle, waiting).
The fraction of peak is the larger of FLOPs / peak FLOPs (matrix ops only,
against the part's dense peak for their element type) and DRAM bytes / peak
bandwidth, over the modelled time.
"""

import dataclasses
import heapq
import math
import re

from arch import arch as archs
from arch import occupancy as occupancies
from arch import perf_model
from arch.perf_model import PerfModelError
from emu.table import normalize

BOUNDS = ("matrix", "VALU", "LDS", "memory latency", "memory bandwidth", "tail")
# Pipe of an instruction class, and whether each SIMD has its own.
_PIPES = {
    "valu": ("valu", True),
    "matrix": ("matrix", True),
    "salu": ("salu", True),
    "lds": ("lds", False),
    "vmem": ("vmem", False),
    "smem": ("smem", False),
}
_SHAPE = re.compile(r"_(\d+)x(\d+)x(\d+)(?:_?(\d+)b)?")
_TYPES = re.compile(r"(bf16|f16|fp8|bf8|i8|xf32|f32|f64)")


@dataclasses.dataclass(frozen=True)
class Estimate:
    """The model's figures for one kernel launch (all modelled, none measured)."""

    microseconds: float
    fraction_of_peak: float
    bound: str  # one of BOUNDS
    cu_cycles: int  # the busiest CU's time
    resident: int  # workgroups one CU holds at once
    per_cu: int  # workgroups the busiest CU runs
    flops: float  # matrix FLOPs of the whole grid
    dram_bytes: int
    l2_bytes: int  # global memory bytes all workgroups request
    shares: dict  # matrix, VALU, LDS, tail -> share of the CU's time
    times: dict  # compute, dram, l2 -> microseconds (l2 None without an L2 figure)

    def text(self):
        return (
            f"model: {self.microseconds:.1f} us, {100 * self.fraction_of_peak:.1f}% of peak, {self.bound}-bound "
            f"(a yardstick from platform/arch/perf_model.json, not a hardware time)"
        )


def matrix_flops(mnemonic):
    """(FLOPs, A/B element type) of a matrix instruction, from its name."""
    m = _SHAPE.search(mnemonic)
    if not m:
        raise PerfModelError(f"performance model: cannot read a matrix shape MxNxK from {mnemonic!r}")
    blocks = int(m.group(4) or 1)
    kind = _TYPES.search(mnemonic[m.end() :]) or _TYPES.search(mnemonic[: m.start()].split("_", 2)[-1])
    return 2 * int(m.group(1)) * int(m.group(2)) * int(m.group(3)) * blocks, kind.group(1) if kind else "?"


@dataclasses.dataclass(frozen=True)
class _Inst:
    kind: str  # the class, or "nop", "signal", "wait_barrier", "barrier", "end"
    pipe: object  # None, or (name, per SIMD)
    cost: int
    latency: int
    interval: int
    flops: int
    dtype: str | None


def _instructions(program, trace, facts, simds, cus):
    lanes = program.kernel.wave_size
    lat = facts.latency_cycles
    out = []
    for inst, cls in zip(program.instructions, program.classes):
        name = normalize(inst.mnemonic)
        cost, latency, interval, flops, dtype, kind = 0, 0, facts.issue_cycles, 0, None, cls
        if cls == "valu":
            cost = -(-lanes // facts.valu_lanes_per_cycle)
        elif cls == "salu":
            if name == "s_nop":
                kind, interval = "nop", (int(inst.operands[0], 0) + 1) * facts.issue_cycles
            elif name == "s_endpgm":
                kind, interval = "end", 0  # the wave's end, not a slot it holds
            else:
                cost = 1
        elif cls == "matrix":
            flops, dtype = matrix_flops(name)
            if name in facts.matrix_passes:
                cost = facts.matrix_passes[name] * facts.cycles_per_pass
            else:
                if dtype not in facts.peak_matrix_tflops:
                    raise PerfModelError(
                        f"performance model: {inst.mnemonic} multiplies {dtype}, and perf_model.json gives "
                        f"{facts.arch} no passes for it and no peak for {dtype} "
                        f"(it has {', '.join(sorted(facts.peak_matrix_tflops))}); add one with its source"
                    )
                per_simd = facts.peak_matrix_tflops[dtype] * 1e12 / (cus * simds * facts.clock_mhz * 1e6)
                cost = math.ceil(flops / per_simd)
        elif cls == "lds":
            n, cycles = trace.lds.get(inst.address, (0, 0))
            cost, latency = (max(1, round(cycles / n)) if n else 1), lat["lds"]
        elif cls == "vmem":
            n, nbytes, _ = trace.memory.get(inst.address, (0, 0, 0))
            cost, latency = (max(1, math.ceil(nbytes / n / facts.vmem_bytes_per_cycle)) if n else 1), lat["vmem"]
        elif cls == "smem":
            cost, latency = 1, lat["smem"]
        elif cls == "barrier":
            kind = {"s_barrier_signal": "signal", "s_barrier_wait": "wait_barrier"}.get(name, "barrier")
        out.append(_Inst(kind, _PIPES.get(cls), cost, latency, interval, flops, dtype))
    return out


class _Wave:
    __slots__ = ("events", "i", "t", "simd", "group", "end", "ready", "issued", "barriers", "blocked")

    def __init__(self, events, simd, group, t):
        self.events, self.i, self.t, self.simd, self.group = events, 0, t, simd, group
        self.end, self.ready, self.issued, self.barriers, self.blocked = t, {}, 0, 0, False


class _Group:
    __slots__ = ("waves", "live", "arrivals")

    def __init__(self):
        self.waves, self.live, self.arrivals = [], 0, {}


class _CU:
    """One CU running `total` workgroups, `resident` at once, from the sampled traces in turn."""

    def __init__(self, info, traces, total, resident, simds):
        self.info, self.traces, self.total, self.resident, self.simds = info, traces, total, resident, simds
        self.free, self.busy = {}, {}
        self.heap, self.order, self.started, self.next_simd, self.finish = [], 0, 0, 0, 0

    def _push(self, w):
        self.order += 1
        heapq.heappush(self.heap, (w.t, self.order, w))

    def _start(self, t):
        g = _Group()
        for events in self.traces[self.started % len(self.traces)]:
            w = _Wave(events, self.next_simd % self.simds, g, t)
            self.next_simd += 1
            g.waves.append(w)
            g.live += 1
            self._push(w)
        self.started += 1

    def _release(self, g):
        for w in g.waves:
            if w.blocked:
                count, at = g.arrivals[w.barriers]
                if count >= g.live:
                    w.blocked, w.t = False, max(w.t, at)
                    self._push(w)

    def _end(self, w):
        g = w.group
        w.end = max([w.end, w.t, *w.ready.values()])
        self.finish = max(self.finish, w.end)
        g.live -= 1
        if g.live:
            self._release(g)
        elif self.started < self.total:
            self._start(max(x.end for x in g.waves))

    def run(self):
        for _ in range(min(self.resident, self.total)):
            self._start(0)
        while self.heap:
            _, _, w = heapq.heappop(self.heap)
            self._step(w)
        return self.finish

    def _step(self, w):
        index, issued, retired = w.events[w.i]
        w.i += 1
        x = self.info[index]
        start = w.t
        for seq in retired:
            start = max(start, w.ready.pop(seq, start))
        if x.kind in ("signal", "barrier"):
            w.barriers += 1
            count, at = w.group.arrivals.get(w.barriers, (0, 0))
            w.group.arrivals[w.barriers] = (count + 1, max(at, start))
        if x.pipe is not None and x.cost:
            key = (w.simd, x.pipe[0]) if x.pipe[1] else x.pipe[0]
            start = max(start, self.free.get(key, 0))
            self.free[key] = start + x.cost
            self.busy[key] = self.busy.get(key, 0) + x.cost
        done = start + x.cost + x.latency
        w.end = max(w.end, done)
        for _ in range(issued):
            w.ready[w.issued] = done
            w.issued += 1
        w.t = start + x.interval
        if x.kind == "end" or w.i == len(w.events):
            self._end(w)
        elif x.kind in ("barrier", "wait_barrier"):
            w.blocked = True
            self._release(w.group)
        else:
            self._push(w)


def occupancy(kernel, threads, dynamic_lds, flavor):
    """Waves per SIMD of emu Kernel `kernel` in workgroups of `threads`, from its
    code object's resource use (as LLVM `flavor` counts LDS granules)."""
    lds = kernel.group_segment_size + dynamic_lds
    return occupancies.waves_per_simd(
        kernel.arch, flavor, kernel.wave_size, kernel.vgpr_count, kernel.sgpr_count, lds, threads
    )


def estimate(program, trace, *, grid, waves_per_simd, dram_bytes):
    """The modelled Estimate of launching `program` (an emu Program) over `grid`
    workgroups, from the Trace of an emulator run of some of them (launch(...,
    trace=True)), its occupancy (waves per SIMD, from the code object's
    resource use) and the bytes it moves to and from DRAM."""
    name = program.kernel.arch
    facts = perf_model.get(name)
    # The unit of eus_per_cu SIMDs that runs a workgroup: a CU on CDNA, a WGP of two CUs on RDNA.
    simds, cus = archs.registers(name).eus_per_cu, archs.get(name).cus // facts.cus_per_wgp
    if not trace.workgroups:
        raise PerfModelError("performance model: the trace has no workgroup; launch at least one with trace=True")
    info = _instructions(program, trace, facts, simds, cus)
    total = math.prod(grid)
    waves = len(trace.workgroups[0])
    resident = max(1, waves_per_simd * simds // waves)
    per_cu = -(-total // cus)
    cu = _CU(info, trace.workgroups, per_cu, resident, simds)
    cycles = max(cu.run(), 1)
    sampled = len(trace.workgroups)
    flops_by_type = {}
    for group in trace.workgroups:
        for events in group:
            for index, _, _ in events:
                x = info[index]
                if x.flops:
                    flops_by_type[x.dtype] = flops_by_type.get(x.dtype, 0) + x.flops
    flops = sum(flops_by_type.values()) * total / sampled
    l2_bytes = round(sum(row[1] for row in trace.memory.values()) * total / sampled)
    times = {
        "compute": cycles / facts.clock_mhz,
        "dram": dram_bytes / (facts.dram_gbps * 1e3),
        "l2": l2_bytes / (facts.l2_gbps * 1e3) if facts.l2_gbps else None,
    }
    us = max(t for t in times.values() if t is not None)

    def share(pipe):
        keys = [(s, pipe) for s in range(simds)] if _PIPES[pipe][1] else [pipe]
        return max(cu.busy.get(k, 0) for k in keys) / cycles

    shares = {"matrix": share("matrix"), "VALU": share("valu"), "LDS": share("lds"), "tail": 1 - total / (cus * per_cu)}
    if us > times["compute"]:
        bound = "memory bandwidth"
    else:
        pipe = max(("matrix", "VALU", "LDS"), key=shares.get)
        bound = pipe if shares[pipe] >= 0.5 else "tail" if shares["tail"] >= 0.5 else "memory latency"
    fraction = dram_bytes / (facts.dram_gbps * 1e9 * us * 1e-6)
    if flops:
        dtype = max(flops_by_type, key=flops_by_type.get)
        if dtype not in facts.peak_matrix_tflops:
            raise PerfModelError(
                f"performance model: the kernel multiplies {dtype}, and perf_model.json gives {name} no peak for "
                f"it (it has {', '.join(sorted(facts.peak_matrix_tflops))}); add one with its source"
            )
        fraction = max(fraction, flops / (facts.peak_matrix_tflops[dtype] * 1e12 * us * 1e-6))
    return Estimate(us, fraction, bound, cycles, resident, per_cu, flops, dram_bytes, l2_bytes, shares, times)
