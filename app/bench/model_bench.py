"""The performance model (platform/emu/model.py: a MODEL, a yardstick, not a
hardware time) on two compilers' GEMM tiles: Triton 3.9.0's tutorial GEMM
(app/cli/testdata/triton, compiled ahead of time by //app/bench:triton_aot)
and the gemm family's 128x128x32 f16 case, both 128x128 blocks of C, on
gfx942, gfx950 and gfx1201 at M = N = K = 4096 and 8192.

    ./bazel run -c opt //app/bench:model [-- --sample 2 --sizes 4096,8192]

Each code object runs in the emulator on random f16 inputs for --sample of
its workgroups (the first and the last, then evenly spaced ones), traced;
the model times the whole grid from that trace, the occupancy from the code
object's resource use and the DRAM bytes of A, B and C (each moved once).
The sampled blocks of C are checked against numpy, so every time is that of
a working run. Prints a Markdown table (both modelled times, their ratio,
each one's fraction of peak and bound) and writes it to
docs/figures/model-triton-gemm.md (tools/bench/figures.py). Nothing here
asserts a speed.
"""

import argparse
import json
import os
import sys

import numpy as np

from emu import emu, model
from gemm import gemm
from lower.llvm import lower
from toolchains.llvm.llvm import Toolchain
from tools.bench import figures

ARCHS = ("gfx942", "gfx950", "gfx1201")
TRITON = os.path.join("app", "cli", "testdata", "triton")
BLOCK = 128  # both tiles' block of C


def _ours(tc, arch):
    """(Program, block threads, dynamic LDS, args(a, b, c, n), grid(n)) of our tile on `arch`."""
    case = next(c for c in gemm.FAMILY.cases if c.id == f"gemm_f16_128x128x32_{arch}")
    kernel = gemm.FAMILY.build(case)
    built = tc.build(lower(kernel, tc.flavor), arch, case.id)
    program = emu.program(built.code_object, None, tc)
    return (
        program,
        kernel.attrs["workgroup_size"][0],
        0,
        lambda a, b, c, n: [a, b, c, n, n, n],
        lambda n: (
            n // BLOCK,
            n // BLOCK,
            1,
        ),
    )


def _triton(tc, arch):
    with open(os.path.join(TRITON, f"gemm_{arch}.json")) as f:
        facts = json.load(f)
    with open(os.path.join(TRITON, f"gemm_{arch}.hsaco"), "rb") as f:
        program = emu.program(f.read(), None, tc)
    # M, N, K, then the row strides of A, B and C, then Triton's global and profile scratch (null).
    return (
        program,
        facts["warps"] * facts["wave"],
        facts["lds"],
        lambda a, b, c, n: [a, b, c, n, n, n, n, n, n, None, None],
        lambda n: ((n // BLOCK) ** 2, 1, 1),
    )


def _sampled(grid, count):
    order = emu.workgroup_order(grid)
    picks = sorted({round(i * (len(order) - 1) / max(count - 1, 1)) for i in range(count)})
    return [order[i] for i in picks]


def _measure(kind, tc, arch, n, sample, rng):
    program, threads, lds, args, grid_of = (_ours if kind == "rocke" else _triton)(tc, arch)
    a = rng.standard_normal((n, n)).astype(np.float16)
    b = rng.standard_normal((n, n)).astype(np.float16)
    c = np.zeros((n, n), np.float16)
    grid = grid_of(n)
    chosen = _sampled(grid, sample)
    result = emu.launch(
        program,
        grid=grid,
        block=(threads, 1, 1),
        args=args(a, b, c, n),
        dynamic_lds=lds,
        workgroups=chosen,
        trace=True,
    )
    _check(a, b, c, n)
    waves = model.occupancy(program.kernel, threads, lds, tc.flavor)
    dram = a.nbytes + b.nbytes + c.nbytes
    return model.estimate(program, result.trace, grid=grid, waves_per_simd=waves, dram_bytes=dram), waves, result


def _check(a, b, c, n):
    """Every block of C the run wrote (nonzero) against numpy; at least one block was written."""
    written = 0
    for i in range(0, n, BLOCK):
        for j in range(0, n, BLOCK):
            got = c[i : i + BLOCK, j : j + BLOCK]
            if not got.any():
                continue
            want = a[i : i + BLOCK].astype(np.float32) @ b[:, j : j + BLOCK].astype(np.float32)
            np.testing.assert_allclose(got.astype(np.float32), want, rtol=2.0**-8, atol=0.25)
            written += 1
    if not written:
        raise AssertionError("the sampled workgroups wrote no block of C")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=2, help="workgroups emulated per kernel (default 2)")
    parser.add_argument("--sizes", default="4096,8192", help="M = N = K of each problem (multiples of 128)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    tc = Toolchain.current()
    rng = np.random.default_rng(21)
    rows, published = [], []
    for arch in ARCHS:
        for n in sizes:
            got = {}
            for kind in ("rocke", "triton"):
                e, waves, result = _measure(kind, tc, arch, n, args.sample, rng)
                got[kind] = e
                print(
                    f"{arch} {n} {kind}: {e.text()}; {waves} waves/SIMD, emulated in {result.seconds:.1f} s",
                    file=sys.stderr,
                )
            ours, theirs = got["rocke"], got["triton"]
            rows.append(
                f"| {arch} | {n}^3 | {ours.microseconds:.0f} | {100 * ours.fraction_of_peak:.1f}% | {ours.bound} "
                f"| {theirs.microseconds:.0f} | {100 * theirs.fraction_of_peak:.1f}% | {theirs.bound} "
                f"| {ours.microseconds / theirs.microseconds:.2f} |"
            )
            if arch == "gfx942":
                flops = 2 * n**3
                published.append(
                    f"| {n}^3 | {flops / ours.microseconds / 1e6:.0f} | {flops / theirs.microseconds / 1e6:.0f} "
                    f"| {PUBLISHED_TFLOPS} | {flops / ours.microseconds / 1e6 / PUBLISHED_TFLOPS:.2f} "
                    f"| {flops / theirs.microseconds / 1e6 / PUBLISHED_TFLOPS:.2f} |"
                )
    body = "\n".join(
        [
            INTRO.format(sample=args.sample, flavor=tc.flavor),
            "",
            "| arch | size | rocke model µs | rocke % of peak | rocke bound | Triton model µs | Triton % of peak "
            "| Triton bound | rocke / Triton time |",
            "|---|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            PUBLISHED,
            "",
            "| size (gfx942) | rocke model TFLOP/s | Triton model TFLOP/s | AMD's MI300X MAF TFLOP/s "
            "| rocke model / published | Triton model / published |",
            "|---|---|---|---|---|---|",
            *published,
        ]
    )
    options = [("--sample", args.sample), ("--sizes", args.sizes)]
    cmd = figures.command("//app/bench:model", __file__, options)
    return figures.publish("model-triton-gemm", "A modelled time for Triton's GEMM tile and ours", cmd, body)


# MI300X FP16 GEMM throughput as AMD published it: the Max-Achievable FLOPs (MAF) of AMD's ROCm blog
# 'Measuring Max-Achievable FLOPs - Part 2' (rocm.blogs.amd.com/software-tools-optimization/
# measuring-max-achievable-flops-part2/README.html), measured with hipBLASLt at the matrix size AMD found best
# for the part, not at 4096^3 or 8192^3. The library search reached the post's opening, not its results
# table, so the figure is quoted second-hand, not read there.
PUBLISHED_TFLOPS = 654

INTRO = """All times are the performance MODEL's (platform/emu/model.py, figures from platform/arch/perf_model.json
with their sources), not hardware times: a yardstick applied equally to both code objects. Each kernel ran {sample}
of its workgroups in the emulator (traced; their blocks of C checked against numpy); the model spreads the whole grid
over the arch's CUs (on RDNA, its WGPs of two CUs: perf_model.json cus_per_wgp). Our tile was built by {flavor};
Triton's code objects are app/cli/testdata/triton. The same figures for one kernel come from
`rocke run FILE.hsaco --grid ... --workgroups ...` (its `model` line)."""

PUBLISHED = """### Against published MI300X throughput

The column below is AMD's measured MI300X FP16 GEMM throughput, 654 TFLOP/s: the Max-Achievable FLOPs of AMD's
ROCm blog 'Measuring Max-Achievable FLOPs - Part 2'
(rocm.blogs.amd.com/software-tools-optimization/measuring-max-achievable-flops-part2/README.html), hipBLASLt at
the matrix size AMD found best, at the clock the part held under that load (the post reports its median). It is
not a figure at these exact sizes, and the library search reached the post's opening, not its results table: the figure
is quoted second-hand, not read there. No Triton-project MI300X figure at these sizes was reached. The
model runs every CU at the peak clock with no power limit, so a ratio above 1 is the model's optimism."""

if __name__ == "__main__":
    sys.exit(main())
