"""Spec to code object, per kernel and per flavor, on Triton's benchmark tile:
the gemm family's 128x128x32 f16 cases (gemm_f16_128x128x32 on gfx942,
gfx950 and gfx1201): build and lower the kernel (the C++ engine, as `rocke
build` does; the Python engine beside it), compile it with the flavor's
real LLVM, link it and read its resource figures.

    ./bazel run -c opt //tools/bench:compile [-- --kernels 12]

- cold: one kernel in a fresh Python process, timed from the process start
  (interpreter, imports, loading LLVM) to its code object and figures; and
  the first kernel's own time inside that process (C++ engine);
- warm: the median per-kernel time in a process that has already built one,
  over --kernels kernels (the three cases in turn), per engine; and, for the
  C++ engine, the median of each stage: lower, compile (LLVM's parse, -O2
  and codegen), link and figures.
Prints a Markdown table (copy it into the README). Triton 3.9.0's figures on
this host, AOT compiling a 128x128x32 f16 GEMM tile for gfx942/gfx950/gfx1201
(issue 11): cold about 0.90 s, warm 0.32-0.39 s. Nothing here asserts a speed.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

START = time.perf_counter()

from arch import flavor_facts  # noqa: E402  (imports are part of the cold figure)
from family import family as families  # noqa: E402
from family.engines import lower_family  # noqa: E402
from toolchains.llvm.llvm import Toolchain, resources  # noqa: E402

CASES = ("gemm_f16_128x128x32_gfx942", "gemm_f16_128x128x32_gfx950", "gemm_f16_128x128x32_gfx1201")
ENGINES = ("cpp", "python")
STAGES = ("lower", "compile", "link")


def _cases():
    by_id = {c.id: c for c in families.load("gemm.gemm").cases}
    return families.load("gemm.gemm"), [by_id[i] for i in CASES]


def build(tc, fam, case, engine="cpp"):
    """One spec to code object: {stage: seconds}."""
    t0 = time.perf_counter()
    ll = lower_family(fam, case, tc.flavor, engine=engine).ll
    t1 = time.perf_counter()
    compiled = tc.compile(ll, case.arch)
    t2 = time.perf_counter()
    tc.link(compiled.obj)
    resources(compiled)
    t3 = time.perf_counter()
    return {"lower": t1 - t0, "compile": t2 - t1, "link": t3 - t2}


def cold(config):
    """Run in a fresh process: one kernel, timed from the process start."""
    tc = Toolchain.from_file(config)
    fam, cases = _cases()
    first = time.perf_counter()
    build(tc, fam, cases[0])
    end = time.perf_counter()
    print(json.dumps({"first_kernel": end - first, "since_start": end - START}))


def warm(tc, kernels, engine):
    """(median, min, max) of the whole, and {stage: median}."""
    fam, cases = _cases()
    build(tc, fam, cases[0], engine)
    runs = [build(tc, fam, cases[i % len(cases)], engine) for i in range(kernels)]
    wholes = [sum(r.values()) for r in runs]
    return (statistics.median(wholes), min(wholes), max(wholes)), {s: statistics.median(r[s] for r in runs) for s in STAGES}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="+", help="toolchain.json of each flavor")
    parser.add_argument("--kernels", type=int, default=12, help="warm kernels per flavor and engine")
    parser.add_argument("--cold", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cold:
        cold(args.configs[0])
        return 0
    toolchains = sorted(((Toolchain.from_file(p), p) for p in args.configs), key=lambda tp: flavor_facts.NAMES.index(tp[0].flavor))
    print("| flavor | cold: fresh process to code object | cold: first kernel | warm, C++ engine: per kernel, median (min-max) | of which lower / compile / link | warm, Python engine |")
    print("|---" * 6 + "|")
    for tc, path in toolchains:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, __file__, "--cold", path], capture_output=True, text=True, check=True)
        whole = time.perf_counter() - start
        first = json.loads(proc.stdout)["first_kernel"]
        (m, lo, hi), stages = warm(tc, args.kernels, "cpp")
        (pm, plo, phi), _ = warm(tc, args.kernels, "python")
        split = " / ".join(f"{stages[s]:.3f}" for s in STAGES)
        print(f"| {tc.flavor} | {whole:.2f} s | {first:.3f} s | {m:.3f} s ({lo:.3f}-{hi:.3f}) | {split} s | {pm:.3f} s ({plo:.3f}-{phi:.3f}) |")
    print("| Triton 3.9.0 (issue 11) | about 0.90 s | | 0.32-0.39 s | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
