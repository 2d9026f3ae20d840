"""Triton 3.9.0 compiling the kernels compile_bench.py times rocke on, so that
both are measured on the same host in the same run (compile_bench runs this).

gemm: Triton's tutorial GEMM (python/tutorials/03-matrix-multiplication.py)
with 128x128x32 blocks in f16: program ids grouped 8 rows of blocks at a
time, A and B row-major with their k edges masked (zeros past K), f32
accumulation, an f16 store masked at the m and n edges; 4 warps, 2 stages.

attention: a flash-attention forward written here in the style of Triton's
tutorial 06 (python/tutorials/06-fused-attention.py), the kernel issue 20
counted Triton's figures on: per program 128 query rows of one head
(BLOCK_M) held in registers, an online softmax in log2 units over blocks of
64 keys (BLOCK_N), f16 Q, K, V and O by strides (the head dim contiguous),
f32 accumulation, grouped-query heads. As the tutorial's, it takes one sequence length, a
multiple of both blocks, so that no load or store is masked; causal, the
keys before a block's first row run unmasked and the diagonal band in a
loop of its own, masked. (rocke's attention_fwd also masks the sequence
edges and takes seq_q != seq_k: more code than this kernel compiles.) Warps
and stages per arch and head dim are issue 20's best Triton variants
(ATTENTION_LAUNCH).

Both are compiled ahead of time with triton.compile (no GPU needed). The
pointers and the non-unit strides are declared divisible by 16 and the unit
strides constant, as Triton's JIT specialises them for contiguous tensors.
No kernel cache answers: a fresh cache folder, and TRITON_ALWAYS_COMPILE.

    triton_compile.py --cold ARCH WAVES   compile the gemm once; print
                                          {"first_kernel": its wall seconds}
    triton_compile.py --aot DIR           write the gemm's code object of each
                                          arch rocke run's test runs
                                          (AOT_ARCHS) as DIR/gemm_ARCH.hsaco,
                                          with DIR/gemm_ARCH.json: Triton's
                                          version, warps, wave size and LDS
                                          bytes
    triton_compile.py                     serve: print {"triton": version};
                                          then for each request on stdin, one
                                          JSON object a line ({"kernel": "gemm",
                                          "arch", "waves"}, or "attention" with
                                          "head_dim" and "causal" too), compile
                                          it and answer {"wall": s, "cpu": s,
                                          "launch": its warps, stages and
                                          blocks} on a line

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

# Issue 20's best Triton variant per (arch, head dim): (warps, stages), with
# BLOCK_M 128 and BLOCK_N 64 on every one.
ATTENTION_LAUNCH = {
    ("gfx942", 64): (4, 1),
    ("gfx950", 64): (4, 1),
    ("gfx1201", 64): (8, 2),
    ("gfx942", 128): (4, 2),
    ("gfx950", 128): (4, 2),
    ("gfx1201", 128): (8, 1),
}
ATTENTION_BLOCKS = {"BM": 128, "BN": 64}
# The head dim's stride of Q, K, V and O is 1, as in a contiguous tensor.
ATTENTION_UNIT_STRIDES = {"sqd": 1, "skd": 1, "svd": 1, "sod": 1}
# The pointers and the strides of batch, head and sequence.
ATTENTION_DIVISIBLE = (
    "q_ptr",
    "k_ptr",
    "v_ptr",
    "o_ptr",
    "sqb",
    "sqh",
    "sqm",
    "skb",
    "skh",
    "skn",
    "svb",
    "svh",
    "svn",
    "sob",
    "soh",
    "som",
)


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


@triton.jit
def _attention_keys(
    acc,
    m_i,
    l_i,
    q,
    k_ptrs,
    v_ptrs,
    skn,
    svn,
    first,
    last,
    rows,
    qk_scale,
    BN: tl.constexpr,
    BAND: tl.constexpr,
):
    # Keys first..last, BN at a time; BAND: the causal diagonal, where row i sees keys j <= i.
    for start in range(first, last, BN):
        s = tl.dot(q, tl.load(k_ptrs + start * skn))
        if BAND:
            s = tl.where(rows[:, None] >= start + tl.arange(0, BN)[None, :], s, float("-inf"))
        # Statistics in log2 units: the scale times log2(e) folded into one multiply-add before exp2.
        m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
        p = tl.math.exp2(s * qk_scale - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        # V after the scores: it is not live across the first product.
        v = tl.load(v_ptrs + start * svn)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    return acc, m_i, l_i


@triton.jit
def attention(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    scale,
    heads,
    group,
    seq,
    sqb,
    sqh,
    sqm,
    sqd,
    skb,
    skh,
    skn,
    skd,
    svb,
    svh,
    svn,
    svd,
    sob,
    soh,
    som,
    sod,
    D: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    CAUSAL: tl.constexpr,
):
    # Program (query block, batch x head); query head h reads key/value head h // group.
    block = tl.program_id(0)
    batch = tl.program_id(1) // heads
    head = tl.program_id(1) % heads
    rows = block * BM + tl.arange(0, BM)
    keys = tl.arange(0, BN)
    dims = tl.arange(0, D)
    q = tl.load(q_ptr + batch * sqb + head * sqh + rows[:, None] * sqm + dims[None, :] * sqd)
    # K is read transposed, [D, BN], so that Q Kᵀ is one dot.
    k_ptrs = k_ptr + batch * skb + (head // group) * skh + keys[None, :] * skn + dims[:, None] * skd
    v_ptrs = v_ptr + batch * svb + (head // group) * svh + keys[:, None] * svn + dims[None, :] * svd
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    qk_scale = scale * 1.4426950408889634  # log2(e)
    if CAUSAL:
        # The keys before the block's first row, which every row sees, then the diagonal band.
        acc, m_i, l_i = _attention_keys(
            acc, m_i, l_i, q, k_ptrs, v_ptrs, skn, svn, 0, block * BM, rows, qk_scale, BN, False
        )
        acc, m_i, l_i = _attention_keys(
            acc, m_i, l_i, q, k_ptrs, v_ptrs, skn, svn, block * BM, block * BM + BM, rows, qk_scale, BN, True
        )
    else:
        acc, m_i, l_i = _attention_keys(acc, m_i, l_i, q, k_ptrs, v_ptrs, skn, svn, 0, seq, rows, qk_scale, BN, False)
    o_ptrs = o_ptr + batch * sob + head * soh + rows[:, None] * som + dims[None, :] * sod
    tl.store(o_ptrs, (acc / l_i[:, None]).to(tl.float16))


def _source(fn, constants, divisible):
    """`fn` with `constants` bound, f16 pointers, an f32 `scale`, i32 for every other argument."""
    names = list(fn.arg_names)

    def kind(n):
        return "constexpr" if n in constants else "*fp16" if n.endswith("_ptr") else "fp32" if n == "scale" else "i32"

    signature = {n: kind(n) for n in names}
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in divisible}
    return ASTSource(fn, signature, constexprs=constants, attrs=attrs)


def _gemm(arch):
    return _source(gemm, CONSTANTS, DIVISIBLE), WARPS, 2, CONSTANTS


def _attention(arch, head_dim, causal):
    if (arch, head_dim) not in ATTENTION_LAUNCH:
        offered = ", ".join(f"{a} d{d}" for a, d in ATTENTION_LAUNCH)
        raise SystemExit(
            f"triton_compile: expected an attention variant of ATTENTION_LAUNCH ({offered}), got {arch} d{head_dim}"
        )
    warps, stages = ATTENTION_LAUNCH[(arch, head_dim)]
    constants = {**ATTENTION_BLOCKS, **ATTENTION_UNIT_STRIDES, "D": head_dim, "CAUSAL": causal}
    return _source(attention, constants, ATTENTION_DIVISIBLE), warps, stages, ATTENTION_BLOCKS


# request "kernel" -> (the request's other fields but "waves") -> (source, warps, stages, {block: size}).
KERNELS = {"gemm": _gemm, "attention": _attention}


def _compile(request):
    fields = dict(request)
    kernel, waves = fields.pop("kernel"), fields.pop("waves")
    if kernel not in KERNELS:
        raise SystemExit(f"triton_compile: expected a kernel of {sorted(KERNELS)}, got {kernel!r}")
    source, warps, stages, constants = KERNELS[kernel](**fields)
    compiled = triton.compile(
        source, target=GPUTarget("hip", fields["arch"], waves), options={"num_warps": warps, "num_stages": stages}
    )
    if not compiled.asm["hsaco"]:
        raise SystemExit(f"triton_compile: Triton made no code object for {request}")
    blocks = ", ".join(f"{k} {constants[k]}" for k in ("BM", "BN", "BK") if k in constants)
    return compiled, f"{warps} warps, {stages} stage{'s' if stages > 1 else ''}, {blocks}"


def compile_one(request):
    """{"wall": s, "cpu": s, "launch": warps, stages and blocks} of one compile to a code object."""
    wall, cpu = time.perf_counter(), time.process_time()
    _, launch = _compile(request)
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu, "launch": launch}


def write_aot(folder):
    """Each AOT_ARCHS code object and its launch facts into `folder` (relative
    to the checkout under bazel run), atomically."""
    from files import atomic  # only --aot writes; compile_bench runs this file without platform's packages

    folder = os.path.join(os.environ.get("BUILD_WORKSPACE_DIRECTORY", ""), folder)
    for arch, waves in AOT_ARCHS.items():
        kernel, _ = _compile({"kernel": "gemm", "arch": arch, "waves": waves})
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
    parser.add_argument("--cold", nargs=2, metavar=("ARCH", "WAVES"), help="compile the gemm once and print its time")
    parser.add_argument("--aot", metavar="DIR", help="write the code objects rocke run's test runs into DIR")
    args = parser.parse_args(argv)
    try:
        if args.aot:
            write_aot(args.aot)
            return 0
        if args.cold:
            request = {"kernel": "gemm", "arch": args.cold[0], "waves": int(args.cold[1])}
            print(json.dumps({"first_kernel": compile_one(request)["wall"]}))
            return 0
        print(json.dumps({"triton": triton.__version__}), flush=True)
        for line in sys.stdin:
            print(json.dumps(compile_one(json.loads(line))), flush=True)
        return 0
    finally:
        shutil.rmtree(_CACHE)


if __name__ == "__main__":
    sys.exit(main())
