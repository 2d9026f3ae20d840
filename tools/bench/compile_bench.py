"""Spec to code object, per kernel and per flavor, on Triton's benchmark tile:
the gemm family's 128x128x32 f16 cases (gemm_f16_128x128x32 on gfx942,
gfx950 and gfx1201): build and lower the kernel (the C++ engine, as `rocke
build` does; the Python engine beside it), compile it with the flavor's
real LLVM, link it and read its resource figures.

    ./bazel run -c opt //tools/bench:compile [-- --kernels 12]

- cold: one kernel in a fresh Python process, timed from the process start
  (interpreter, imports, loading LLVM) to its code object and figures; and
  the first kernel's own time inside that process; per engine;
- warm: the median per-kernel time in a process that has already built one,
  over --kernels kernels (the three cases in turn), per engine; and, for the
  C++ engine, the median of each stage: lower, compile (LLVM's parse, -O2
  and codegen), link and figures. Wall times, and the CPU time per kernel
  (this process, ld.lld and the LLVM 20 worker): on a machine shared with
  other work the wall time stretches and the CPU time stays. And the CPU
  time of each of LLVM's own stages, as the compile reports it (in process,
  or inside LLVM 20's worker): parse (and verify), -O2, codegen.
Prints the load average (the figures are wall times) and a Markdown table
(copy it into the README). Triton 3.9.0's figures on
this host, AOT compiling a 128x128x32 f16 GEMM tile for gfx942/gfx950/gfx1201
(issue 11): cold about 0.90 s, warm 0.32-0.39 s. Nothing here asserts a speed.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

START = time.perf_counter()

from arch import flavor_facts  # noqa: E402  (imports are part of the cold figure)
from family import family as families  # noqa: E402
from family.engines import lower_family  # noqa: E402
from toolchains.llvm import llvm  # noqa: E402
from toolchains.llvm.llvm import Toolchain, resources  # noqa: E402

CASES = ("gemm_f16_128x128x32_gfx942", "gemm_f16_128x128x32_gfx950", "gemm_f16_128x128x32_gfx1201")
ENGINES = ("cpp", "python")
STAGES = ("lower", "compile", "link")
LLVM_STAGES = ("parse", "o2", "codegen")  # Compiled.stages


def _cases():
    by_id = {c.id: c for c in families.load("gemm.gemm").cases}
    return families.load("gemm.gemm"), [by_id[i] for i in CASES]


def cpu_seconds():
    """CPU time of this process, its finished children (ld.lld) and the live
    LLVM 20 worker (read from /proc: it is never waited for): what the
    kernel costs whatever else the cores run."""
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = time.process_time() + child.ru_utime + child.ru_stime
    for worker in llvm._WORKERS.values():
        with open(f"/proc/{worker.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    return total


def build(tc, fam, case, engine="cpp"):
    """One spec to code object: {stage: wall seconds, "cpu": CPU seconds,
    LLVM stage: CPU seconds}."""
    c0, t0 = cpu_seconds(), time.perf_counter()
    ll = lower_family(fam, case, tc.flavor, engine=engine).ll
    t1 = time.perf_counter()
    compiled = tc.compile(ll, case.arch)
    t2 = time.perf_counter()
    tc.link(compiled.obj)
    resources(compiled)
    t3 = time.perf_counter()
    return {"lower": t1 - t0, "compile": t2 - t1, "link": t3 - t2, "cpu": cpu_seconds() - c0, **compiled.stages}


def cold(config, engine):
    """Run in a fresh process: one kernel, timed from the process start."""
    tc = Toolchain.from_file(config)
    fam, cases = _cases()
    first = time.perf_counter()
    build(tc, fam, cases[0], engine)
    end = time.perf_counter()
    print(json.dumps({"first_kernel": end - first, "since_start": end - START}))


def warm(tc, kernels, engine):
    """(median, min, max) of the whole, and {stage or "cpu": median}."""
    fam, cases = _cases()
    build(tc, fam, cases[0], engine)
    runs = [build(tc, fam, cases[i % len(cases)], engine) for i in range(kernels)]
    wholes = [sum(r[s] for s in STAGES) for r in runs]
    return (statistics.median(wholes), min(wholes), max(wholes)), {s: statistics.median(r[s] for r in runs) for s in (*STAGES, "cpu", *LLVM_STAGES)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="+", help="toolchain.json of each flavor")
    parser.add_argument("--kernels", type=int, default=12, help="warm kernels per flavor and engine")
    parser.add_argument("--cold", choices=ENGINES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cold:
        cold(args.configs[0], args.cold)
        return 0
    toolchains = sorted(((Toolchain.from_file(p), p) for p in args.configs), key=lambda tp: flavor_facts.NAMES.index(tp[0].flavor))
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print("| flavor | cold, C++ / Python engine: fresh process to code object (first kernel) | warm, C++ engine: per kernel, median (min-max) | of which lower / compile / link | CPU | of which LLVM's parse / -O2 / codegen, CPU | warm, Python engine | CPU |")
    print("|---" * 8 + "|")
    for tc, path in toolchains:
        colds = []
        for engine in ENGINES:
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, __file__, "--cold", engine, path], capture_output=True, text=True, check=True)
            colds.append(f"{time.perf_counter() - start:.2f} s ({json.loads(proc.stdout)['first_kernel']:.2f})")
        (m, lo, hi), stages = warm(tc, args.kernels, "cpp")
        (pm, plo, phi), pstages = warm(tc, args.kernels, "python")
        split = " / ".join(f"{stages[s]:.3f}" for s in STAGES)
        llvm_split = " / ".join(f"{stages[s]:.3f}" for s in LLVM_STAGES)
        print(f"| {tc.flavor} | {' / '.join(colds)} | {m:.3f} s ({lo:.3f}-{hi:.3f}) | {split} s | {stages['cpu']:.3f} s | {llvm_split} s | {pm:.3f} s ({plo:.3f}-{phi:.3f}) | {pstages['cpu']:.3f} s |")
    print("| Triton 3.9.0 (issue 11) | about 0.90 s | 0.32-0.39 s | | | | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
