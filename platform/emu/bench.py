"""The emulator's speed: lane-instructions per second on wave64 VALU code,
LDS code and MFMA code (hand-written instruction sequences on one wave, as
the semantics tests run them), and the time to run one workgroup of the
128x128x32 gemm tile (platform/tile/gemm_example.py, TILES_128, gfx942, f16)
with K = 4096, built by the default flavor's LLVM.

    ./bazel run -c opt //platform/emu:bench -- [--write docs/figures/emu.md]

A lane-instruction is one vector instruction on one lane of a wave (a wave64
VALU instruction is 64). Each figure is the best of --repeat runs. --write
writes the table, headed by the command and the date, to a file (a path in
the checkout).
"""

import argparse
import datetime
import os
import sys
import time

import numpy as np

from emu import emu, testing
from files.atomic import write_atomic
from lower.llvm import lower
from tile.gemm_example import TILES_128, gemm_kernel
from toolchains.llvm.llvm import Toolchain

GOALS = {"valu": "at least 20 M lane-instructions/s", "gemm": "under 5 s"}

# One loop body of each kind, repeated to a straight line of REPEAT copies.
BODIES = {
    "valu": [
        "v_add_u32_e32 v1, v0, v1",
        "v_mul_lo_u32 v2, v1, v0",
        "v_fma_f32 v3, v1, v2, v3",
        "v_and_b32_e32 v4, 0xff, v2",
        "v_lshlrev_b32_e32 v5, 2, v4",
        "v_cndmask_b32_e64 v6, v5, v4, s[0:1]",
        "v_add_f32_e32 v7, v3, v7",
        "v_xor_b32_e32 v8, v7, v6",
    ],
    "lds": [
        "ds_write_b32 v10, v1",
        "ds_read_b128 v[12:15], v11",
        "ds_write_b64 v10, v[2:3] offset:256",
        "ds_read_b32 v16, v10 offset:512",
        "s_waitcnt lgkmcnt(0)",
    ],
    "mfma": [
        "v_mfma_f32_16x16x16_f16 v[20:23], v[24:25], v[26:27], v[20:23]",
        "v_mfma_f32_32x32x8_f16 v[32:47], v[24:25], v[26:27], v[32:47]",
    ],
}
REPEAT = 200


def _lane_instructions_per_second(kind, repeat):
    lines = BODIES[kind] * REPEAT
    best = 0.0
    for _ in range(repeat):
        wg = testing.workgroup("gfx942", lines, lds=4096)
        w = wg.waves[0]
        w.v[:, 0] = np.arange(64, dtype=np.uint32)
        w.v[:, 10] = np.arange(64, dtype=np.uint32) * 4
        w.v[:, 11] = np.arange(64, dtype=np.uint32) * 16
        w.s[0] = w.s[1] = 0x55555555
        start = time.perf_counter()
        counts = testing.run(wg)
        seconds = time.perf_counter() - start
        vector = sum(n for n, c in zip(counts, wg.program.classes) if c in ("valu", "lds", "matrix"))
        best = max(best, vector * 64 / seconds)
    return best


def _gemm_workgroup(repeat):
    tc = Toolchain.current()
    cfg = TILES_128["gfx942"]("f16")
    kernel, grid = gemm_kernel("gfx942", "f16", cfg)
    m = n = 128
    k = 4096
    program = emu.program(tc.build(lower(kernel, tc.flavor), "gfx942", kernel.name).code_object, kernel.name, tc)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k)).astype(np.float16), rng.standard_normal((k, n)).astype(np.float16)
    best = None
    for _ in range(repeat):
        c = np.zeros((m, n), np.float16)
        result = emu.launch(program, grid=grid(m, n), block=kernel.attrs["workgroup_size"], args=[a, b, c, m, n, k])
        best = result if best is None or result.seconds < best.seconds else best
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(
        c.astype(np.float64), want, rtol=2.0**-9, atol=0.1
    )  # checked, so the figure is a working run
    return best, tc.flavor


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", help="also write the table here (inside the checkout)")
    args = parser.parse_args(argv)
    rows = [("code", "figure", "goal")]
    for kind in BODIES:
        rate = _lane_instructions_per_second(kind, args.repeat)
        rows.append((f"wave64 {kind.upper()}", f"{rate / 1e6:.2f} M lane-instructions/s", GOALS.get(kind, "")))
    result, flavor = _gemm_workgroup(args.repeat)
    rows.append(
        (
            f"gemm 128x128x32 tile, K=4096, one workgroup (gfx942, f16, {flavor})",
            f"{result.seconds:.2f} s ({result.instructions} instructions in {result.waves} waves, "
            f"{result.lane_instructions / result.seconds / 1e6:.2f} M lane-instructions/s)",
            GOALS["gemm"],
        )
    )
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    table = "\n".join(
        "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"
        for r in [rows[0], tuple("-" * w for w in widths), *rows[1:]]
    )
    print(table)
    if args.write:
        base = os.environ.get("BUILD_WORKING_DIRECTORY", os.getcwd())
        command = "./bazel run -c opt //platform/emu:bench -- " + " ".join(argv if argv is not None else sys.argv[1:])
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        header = (
            f"# platform/emu speed\n\nWritten by `{command.strip()}` on {datetime.date.today().isoformat()} "
            f"({os.cpu_count()} cores, load average {load} when it ended, other work sharing them; "
            f"each figure is the best of {args.repeat} runs).\n\n"
        )
        write_atomic(os.path.join(base, args.write), (header + table + "\n").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
