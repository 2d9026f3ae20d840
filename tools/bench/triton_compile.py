"""Triton 3.9.0 compiling the tile compile_bench.py times rocke on, so both
are measured on the same host in the same run (compile_bench runs this).

The kernel is Triton's own tutorial form of a 128x128x32 f16 GEMM tile (A
row-major, B row-major, f32 accumulation, f16 store masked at the edges),
4 warps, 2 stages, compiled ahead of time with triton.compile for gfx942,
gfx950 or gfx1201 (no GPU needed). The pointers, sizes and leading
strides are declared divisible by 16 and the unit strides constant, as
Triton's JIT specialises them for contiguous tensors. No kernel cache
answers: a fresh cache folder, and TRITON_ALWAYS_COMPILE.

Two ways to run it:
  --cold        compile for gfx942 once and print {"first_kernel": its wall
                seconds, "since_start": process start to its code object}
  (no flag)     serve: read one arch per line on stdin, compile it, answer
                {"wall": s, "cpu": s, "bytes": code object size} on a line;
                the first line names the Triton version that runs
so that compile_bench can interleave Triton's kernels with rocke's and both
meet the same load on a shared host.
"""

import time

START = time.perf_counter()

import argparse  # noqa: E402  (imports are part of the cold figure)
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

# Before triton reads its settings: a cache of its own (never the user's),
# always compiled, and FP fusion as Triton 3.9 defaults it (set, so that it
# does not warn).
_CACHE = tempfile.mkdtemp(prefix="rocke-triton-")
os.environ.update(TRITON_CACHE_DIR=_CACHE, TRITON_HOME=_CACHE, TRITON_ALWAYS_COMPILE="1", TRITON_DEFAULT_FP_FUSION="1")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

ARCHS = (("gfx942", 64), ("gfx950", 64), ("gfx1201", 32))  # compile_bench's cases, in its order
TILE = {"BM": 128, "BN": 128, "BK": 32}
UNIT_STRIDES = {"sak": 1, "sbn": 1, "scn": 1}


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK * sak
        b += BK * sbk
    c = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def _source():
    names = list(gemm.arg_names)
    constants = {**TILE, **UNIT_STRIDES}
    signature = {n: "constexpr" if n in constants else "*fp16" if n.endswith("_ptr") else "i32" for n in names}
    divisible = ("a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "sam", "sbk", "scm")
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in divisible}
    return ASTSource(gemm, signature, constexprs=constants, attrs=attrs)


def compile_one(arch, wave_size):
    """(wall s, CPU s, code object bytes) of one compile."""
    wall, cpu = time.perf_counter(), time.process_time()
    kernel = triton.compile(_source(), target=GPUTarget("hip", arch, wave_size), options={"num_warps": 4, "num_stages": 2})
    return time.perf_counter() - wall, time.process_time() - cpu, len(kernel.asm["hsaco"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", action="store_true", help="one kernel, then its figures")
    args = parser.parse_args(argv)
    waves = dict(ARCHS)
    try:
        if args.cold:
            first_kernel = compile_one(*ARCHS[0])[0]
            json.dump({"first_kernel": first_kernel, "since_start": time.perf_counter() - START}, sys.stdout)
            print()
            return 0
        print(json.dumps({"triton": triton.__version__}), flush=True)
        for line in sys.stdin:
            wall, cpu, size = compile_one(line.strip(), waves[line.strip()])
            print(json.dumps({"wall": wall, "cpu": cpu, "bytes": size}), flush=True)
        return 0
    finally:
        shutil.rmtree(_CACHE)


if __name__ == "__main__":
    sys.exit(main())
