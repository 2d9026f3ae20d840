"""Triton 3.9.0 compiling the tile compile_bench.py times rocke on, so that
both are measured on the same host in the same run (compile_bench runs this).

The kernel is Triton's tutorial GEMM (python/tutorials/03-matrix-
multiplication.py) with 128x128x32 blocks in f16: program ids grouped 8 rows
of blocks at a time, A and B row-major with their k edges masked (zeros
past K), f32 accumulation, an f16 store masked at the m and n edges; 4 warps,
2 stages, compiled ahead of time with triton.compile (no GPU needed). The
pointers, sizes and leading strides are declared divisible by 16 and the
unit strides constant, as Triton's JIT specialises them for contiguous
tensors. No kernel cache answers: a fresh cache folder, and
TRITON_ALWAYS_COMPILE.

    triton_compile.py --cold ARCH WAVES   compile once; print {"first_kernel":
                                          its wall seconds}
    triton_compile.py --aot DIR           write the code object of each arch
                                          rocke run's test runs (AOT_ARCHS) as
                                          DIR/gemm_ARCH.hsaco, with
                                          DIR/gemm_ARCH.json: Triton's version,
                                          warps, wave size and LDS bytes
    triton_compile.py                     serve: print {"triton": version};
                                          then for each line "ARCH WAVES" on
                                          stdin compile it and answer
                                          {"wall": s, "cpu": s} on a line

Serving lets compile_bench interleave Triton's kernels with rocke's, so
that both meet the same load on a shared host.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

# Before triton reads its settings: a cache of its own (never the user's),
# always compiled, and FP fusion as Triton 3.9 defaults it (set, so that it
# does not warn).
_CACHE = tempfile.mkdtemp(prefix="rocke-triton-")
os.environ.update(TRITON_CACHE_DIR=_CACHE, TRITON_HOME=_CACHE, TRITON_ALWAYS_COMPILE="1", TRITON_DEFAULT_FP_FUSION="1")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

# The archs the emulator runs, with their wave size: //app/cli:run_triton_test
# runs these code objects, written by --aot into app/cli/testdata/triton.
AOT_ARCHS = {"gfx942": 64, "gfx950": 64, "gfx1201": 32}
WARPS = 4
CONSTANTS = {"BM": 128, "BN": 128, "BK": 32, "GROUP_M": 8, "sak": 1, "sbn": 1, "scn": 1}
DIVISIBLE = ("a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "sam", "sbk", "scm")


@triton.jit
def gemm(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    # Blocks in groups of GROUP_M block rows, column by column within a group.
    pid = tl.program_id(0)
    blocks_m, blocks_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    group_first = (pid // (GROUP_M * blocks_n)) * GROUP_M
    group_rows = min(blocks_m - group_first, GROUP_M)
    pid_m = group_first + (pid % (GROUP_M * blocks_n)) % group_rows
    pid_n = (pid % (GROUP_M * blocks_n)) // group_rows
    rows = (pid_m * BM + tl.arange(0, BM)) % M
    cols = (pid_n * BN + tl.arange(0, BN)) % N
    ks = tl.arange(0, BK)
    a = a_ptr + rows[:, None] * sam + ks[None, :] * sak
    b = b_ptr + ks[:, None] * sbk + cols[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for step in range(0, tl.cdiv(K, BK)):
        left = K - step * BK
        acc = tl.dot(
            tl.load(a, mask=ks[None, :] < left, other=0.0), tl.load(b, mask=ks[:, None] < left, other=0.0), acc
        )
        a += BK * sak
        b += BK * sbk
    out_rows = pid_m * BM + tl.arange(0, BM)
    out_cols = pid_n * BN + tl.arange(0, BN)
    c = c_ptr + out_rows[:, None] * scm + out_cols[None, :] * scn
    tl.store(c, acc.to(tl.float16), mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


def _source():
    names = list(gemm.arg_names)
    signature = {n: "constexpr" if n in CONSTANTS else "*fp16" if n.endswith("_ptr") else "i32" for n in names}
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in DIVISIBLE}
    return ASTSource(gemm, signature, constexprs=CONSTANTS, attrs=attrs)


def _compile(arch, waves):
    kernel = triton.compile(
        _source(), target=GPUTarget("hip", arch, waves), options={"num_warps": WARPS, "num_stages": 2}
    )
    if not kernel.asm["hsaco"]:
        raise SystemExit(f"triton_compile: Triton made no code object for {arch}")
    return kernel


def compile_one(arch, waves):
    """(wall s, CPU s) of one compile to a code object."""
    wall, cpu = time.perf_counter(), time.process_time()
    _compile(arch, waves)
    return time.perf_counter() - wall, time.process_time() - cpu


def write_aot(folder):
    """Each AOT_ARCHS code object and its launch facts into `folder` (relative
    to the checkout under bazel run), atomically."""
    from files import atomic  # only --aot writes; compile_bench runs this file without platform's packages

    folder = os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", ""), folder)
    for arch, waves in AOT_ARCHS.items():
        kernel = _compile(arch, waves)
        facts = {
            "arch": arch,
            "lds": kernel.metadata.shared,
            "triton": triton.__version__,
            "warps": WARPS,
            "wave": waves,
        }
        atomic.write_atomic(os.path.join(folder, f"gemm_{arch}.hsaco"), kernel.asm["hsaco"])
        atomic.write_atomic(
            os.path.join(folder, f"gemm_{arch}.json"), (json.dumps(facts, sort_keys=True) + "\n").encode()
        )
        print(f"triton_compile: wrote {folder}/gemm_{arch}.hsaco ({len(kernel.asm['hsaco'])} bytes)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", nargs=2, metavar=("ARCH", "WAVES"), help="compile one kernel and print its time")
    parser.add_argument("--aot", metavar="DIR", help="write the code objects rocke run's test runs into DIR")
    args = parser.parse_args(argv)
    try:
        if args.aot:
            write_aot(args.aot)
            return 0
        if args.cold:
            print(json.dumps({"first_kernel": compile_one(args.cold[0], int(args.cold[1]))[0]}))
            return 0
        print(json.dumps({"triton": triton.__version__}), flush=True)
        for line in sys.stdin:
            arch, waves = line.split()
            wall, cpu = compile_one(arch, int(waves))
            print(json.dumps({"wall": wall, "cpu": cpu}), flush=True)
        return 0
    finally:
        shutil.rmtree(_CACHE)


if __name__ == "__main__":
    sys.exit(main())
