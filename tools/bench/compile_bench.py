"""Spec to code object, per kernel and per flavor: build a GEMM with the
platform's proof kernel builder (platform/tile/gemm_example.py), lower it,
compile it with the flavor's real LLVM, link it and read its resource
figures. Two tiles: the proof GEMM's own (32x32x16) and Triton's benchmark
tile (128x128x32, 4 waves), f16 and bf16, for gfx942, gfx950 and gfx1201.

    ./bazel run //tools/bench:compile [-- --kernels 12]

- cold: one kernel in a fresh Python process, timed from the process start
  (interpreter, imports, loading LLVM) to its code object and figures; and
  the first kernel's own time inside that process;
- warm: the median per-kernel time in a process that has already built one,
  over --kernels kernels (the CASES below in turn), per tile.
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

from lower.llvm import lower  # noqa: E402  (imports are part of the cold figure)
from tile.gemm import GemmConfig  # noqa: E402
from tile.gemm_example import gemm_kernel  # noqa: E402
from toolchains.llvm.llvm import Toolchain, resources  # noqa: E402
from arch import flavor_facts  # noqa: E402

CASES = [("gfx942", "f16"), ("gfx950", "bf16"), ("gfx1201", "f16"), ("gfx942", "bf16")]
# Tile -> config for (dtype); None: the proof GEMM's own per family.
TILES = {
    "128x128x32": lambda dtype: GemmConfig(f"mma_16x16x16_{dtype}_f32", 128, 128, 32, 2, 2),
    "32x32x16": lambda dtype: None,
}
COLD_TILE = "128x128x32"  # Triton's


def build(tc, arch, dtype, tile=COLD_TILE):
    """One spec to code object: returns the code object and its figures."""
    kernel, _ = gemm_kernel(arch, dtype, TILES[tile](dtype))
    compiled = tc.compile(lower(kernel, tc.flavor), arch)
    return tc.link(compiled.obj), resources(compiled)


def cold(config):
    """Run in a fresh process: one kernel, timed from the process start."""
    tc = Toolchain.from_file(config)
    first = time.perf_counter()
    build(tc, *CASES[0])
    end = time.perf_counter()
    print(json.dumps({"first_kernel": end - first, "since_start": end - START}))


def warm(tc, kernels, tile):
    build(tc, *CASES[0], tile)
    times = []
    for i in range(kernels):
        start = time.perf_counter()
        build(tc, *CASES[i % len(CASES)], tile)
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), max(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="+", help="toolchain.json of each flavor")
    parser.add_argument("--kernels", type=int, default=12, help="warm kernels per flavor")
    parser.add_argument("--cold", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cold:
        cold(args.configs[0])
        return 0
    toolchains = sorted(((Toolchain.from_file(p), p) for p in args.configs), key=lambda tp: flavor_facts.NAMES.index(tp[0].flavor))
    print(f"| flavor | cold, {COLD_TILE}: fresh process to code object | cold: first kernel | " + " | ".join(f"warm, {t}: per kernel, median (min-max)" for t in TILES) + " |")
    print("|---" * (3 + len(TILES)) + "|")
    for tc, path in toolchains:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, __file__, "--cold", path], capture_output=True, text=True, check=True)
        whole = time.perf_counter() - start
        first = json.loads(proc.stdout)["first_kernel"]
        warms = [warm(tc, args.kernels, tile) for tile in TILES]
        print(f"| {tc.flavor} | {whole:.2f} s | {first:.3f} s | " + " | ".join(f"{m:.3f} s ({lo:.3f}-{hi:.3f})" for m, lo, hi in warms) + " |")
    print("| Triton 3.9.0 (issue 11) | about 0.90 s | | 0.32-0.39 s | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
