"""Platform figures: lowering time of the proof GEMM, interpreter throughput.

    ./bazel run //tools/bench:platform

Prints a Markdown table and writes it to docs/figures/platform.md
(figures.py). Lowering times include verification and are the median of
five runs; nothing here asserts a speed.
"""

import statistics
import sys
import time

import numpy as np

from interp.interp import run
from lower.flavors import FLAVORS
from lower.llvm import lower
from tile.gemm_example import gemm_kernel
from tools.bench import figures

CASES = [("gfx942", "f16"), ("gfx950", "bf16"), ("gfx1201", "f16"), ("gfx1250", "bf16")]


def median_seconds(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    rows = []
    for arch, dtype in CASES:
        build = median_seconds(lambda: gemm_kernel(arch, dtype), 5)
        kernel, _ = gemm_kernel(arch, dtype)
        for flavor in FLAVORS:
            if arch == "gfx1250" and flavor == "llvm20":
                continue
            seconds = median_seconds(lambda: lower(kernel, flavor), 5)
            size = len(lower(kernel, flavor))
            rows.append(
                f"| lower GEMM {dtype} {arch} -> {flavor} | {seconds * 1e3:.1f} ms ({size // 1024} KiB of IR; building the kernel {build * 1e3:.1f} ms) |"
            )
    m = n = k = 128
    for arch, dtype in CASES[:3]:
        kernel, grid = gemm_kernel(arch, dtype)
        a = np.ones((m, k), np.float16 if dtype == "f16" else np.uint16)
        b = np.ones((k, n), a.dtype)
        c = np.zeros((m, n), a.dtype)
        start = time.perf_counter()
        lane_ops = run(kernel, grid(m, n), [a, b, c, m, n, k])
        seconds = time.perf_counter() - start
        rows.append(
            f"| interpret GEMM {dtype} {arch} {m}x{n}x{k} | {lane_ops / seconds / 1e6:.1f} M lane-ops/s ({lane_ops / 1e6:.1f} M lane-ops in {seconds:.2f} s) |"
        )
    body = "| platform measurement | figure |\n|---|---|\n" + "\n".join(rows)
    cmd = figures.command("//tools/bench:platform", __file__)
    return figures.publish("platform", "Lowering and interpreting the proof GEMM", cmd, body)


if __name__ == "__main__":
    sys.exit(main())
