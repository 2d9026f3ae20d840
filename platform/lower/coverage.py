"""Kernels that exercise every op the lowering handles: the corpus that
flavors_test compiles and that the availability probes take their
intrinsic calls from."""

from arch import arch as archs
from arch.lds_ops import LDS_OPS
from ir import mma as M
from ir import types as T
from ir.builder import KernelBuilder


def every_op(arch):
    """A kernel using every op kind (but mma, covered by the GEMM tests)."""
    b = KernelBuilder("every_op", arch=arch, workgroup_size=(64, 1, 1), waves_per_eu=2)
    out, x, n = b.arg("out", T.GLOBAL), b.arg("x", T.F32), b.arg("n", T.I32)
    tid = b.thread_id(0)
    i = b.add(b.mul(b.block_id(0), b.block_dim(0)), tid)
    for dim in (1, 2):  # every id intrinsic, in every dimension
        i = b.add(i, b.mul(b.add(b.block_id(dim), b.thread_id(dim)), b.grid_dim(dim)))
    f = b.fma(b.exp(x), b.log(b.exp2(x)), b.sqrt(b.rsqrt(x)))
    f = b.max(b.min(f, 1.0), b.neg(f))
    h = b.convert(f, T.F16)
    bf = b.convert(h, T.BF16)
    q = b.convert(b.convert(bf, T.F8E4M3), T.F8E5M2)
    g = b.convert(q, T.F32)
    v = b.build([g, f, f, g])
    v = b.insert(b.shuffle(v, v, [0, 5, 2, 7]), x, 1)
    s = b.add(b.extract(v, 1), b.convert(b.readfirstlane(i), T.F32))
    s = b.add(s, b.bpermute(b.mul(b.lane_id(), 4), s))
    bits = b.bitcast(s, T.I32)
    bits = b.xor(b.or_(b.and_(b.shl(bits, 1), 255), b.shr(bits, 2)), b.rem(b.div(bits, 3), 7))
    bits = b.xor(bits, b.urem(b.udiv(bits, 5), 9))
    bits = b.min(b.max(bits, 0), n)  # integer min and max lower to intrinsics too (llvm.smin, llvm.smax)
    lds = b.lds_alloc(256 * 4)
    b.store(b.offset(lds, b.mul(tid, 4)), bits)
    b.sched_barrier()
    b.barrier()
    b.lds_barrier()
    with b.for_range(0, n, 1, [b.const(0, T.I32)]) as loop:
        b.yield_(b.add(loop.iters[0], b.load(b.offset(lds, b.mul(b.rem(loop.iv, 64), 4)), T.I32)))
    cond = b.cmp("lt", i, b.grid_dim(0))
    br = b.if_(cond, [T.I32])
    with br.then_():
        b.yield_(b.select(cond, loop.results[0], bits))
    with br.else_():
        b.yield_(b.const(-1, T.I32))
    r = b.buffer_rsrc(out, b.mul(n, 4))
    old = b.buffer_load(r, b.mul(i, 4), T.I32)
    b.buffer_store(r, b.mul(i, 4), b.add(old, br.results[0]))
    # Every buffer access width, and the f16 and f32 forms of the lane and math ops.
    for t in (T.I8, T.F16, T.vector(T.F32, 2), T.vector(T.F16, 8)):
        b.buffer_store(r, 64, b.buffer_load(r, 32, t))
    h16 = b.convert(x, T.F16)
    b.store(out, b.fma(b.exp(h16), b.log(b.sqrt(b.exp2(h16))), b.rsqrt(h16)))
    b.store(out, b.readfirstlane(s))
    b.atomic_add(out, s)
    b.store(b.offset(out, 8), b.load(b.offset(out, 16), T.vector(T.F16, 8)))
    return b.finish()


def mma_kernel(arch, op_id):
    """One matrix op: fragments loaded from memory, the result stored."""
    info = archs.get(arch)
    a_t, b_t, c_t = M.fragment_types(op_id, info.generation)
    b = KernelBuilder("mma_" + op_id, arch=arch, workgroup_size=(info.wave_sizes[0], 1, 1))
    p = b.arg("p", T.GLOBAL)
    a, bb, c = (b.load_wide(b.offset(p, i * 64), t) for i, t in enumerate((a_t, b_t, c_t)))
    b.store_wide(p, b.mma(op_id, a, bb, c))
    return b.finish()


def lds_ops_kernel(arch):
    """The arch-limited memory ops (arch/lds_ops.json), for an arch that has them all."""
    b = KernelBuilder("lds_ops", arch=arch, workgroup_size=(64, 1, 1))
    p = b.arg("p", T.GLOBAL)
    tid = b.thread_id(0)
    lds = b.lds_alloc(1024)
    # The destination is each wave's own 1 KiB (an offset, not the
    # allocation itself, so the probes load it like any other operand).
    b.load_to_lds(b.offset(p, b.mul(tid, 16)), b.offset(lds, b.mul(b.div(tid, 64), 1024)))
    b.barrier()
    b.buffer_load_to_lds(b.buffer_rsrc(p, 4096), b.mul(tid, 16), 1024, b.offset(lds, b.mul(b.div(tid, 64), 1024)))
    b.barrier()
    for elem in (T.F16, T.BF16, T.I16):
        b.store(b.offset(p, b.mul(tid, 8)), b.load_transpose(b.offset(lds, b.mul(tid, 8)), elem))
    return b.finish()


def corpus(arch):
    """Every coverage kernel for `arch`."""
    limited = [lds_ops_kernel(arch)] if all(arch in op.archs for op in LDS_OPS.values()) else []
    return [every_op(arch)] + limited + [mma_kernel(arch, m.op) for m in archs.get(arch).matrix]
