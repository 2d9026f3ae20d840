"""The C++ builder and verifier (ir_dump) against Python's platform/ir: the
same bad constructions raise errors with the same facts (class, field and
value: errors.check_parity), and the same good kernels
have the same ops, in the same order, with the same constants, attributes
and types (compared structurally: the .rk printer is printer.cc's)."""

import json
import os
import subprocess

import pytest

from arch import arch as archs
from errors.errors import check_parity
from ir import types as T
from ir.builder import KernelBuilder
from ir.core import VerifyError
from ir.printer import format_attr

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ir_dump")
F32, F16, I32, I64 = T.F32, T.F16, T.I32, T.I64


@pytest.fixture(scope="module")
def dump():
    return json.loads(subprocess.run([DUMP], capture_output=True, text=True, check=True).stdout)


# -- programs: ir_dump.cc's line format ------------------------------------------


def lines(kernel):
    names = {a: f"%{a.name}" for a in kernel.args}
    out = []
    counter = iter(range(1 << 30))

    def define(v):
        names[v] = f"%{next(counter)}"
        return names[v]

    def block(b, depth):
        indent = "  " * depth
        if b.args:
            out.append(indent + "^(" + ", ".join(f"{define(a)}: {a.type}" for a in b.args) + ")")
        for op in b.ops:
            results = ", ".join(define(r) for r in op.results)
            line = indent + (results + " = " if op.results else "")
            line += f"{op.name}({', '.join(names[v] for v in op.operands)})"
            if op.attrs:
                line += " {" + ", ".join(f"{k}={format_attr(v)}" for k, v in sorted(op.attrs.items())) + "}"
            if op.results:
                line += " : " + ", ".join(str(r.type) for r in op.results)
            out.append(line)
            for r in op.regions:
                block(r, depth + 1)

    block(kernel.body, 0)
    return out


def every_op():
    b = KernelBuilder("every", arch="gfx942", workgroup_size=(256, 1, 1))
    x = b.arg("x", T.GLOBAL)
    n = b.arg("n", I32)
    t = b.thread_id(0)
    bid = b.block_id(1)
    bd = b.block_dim(2)
    gd = b.grid_dim(0)
    lane = b.lane_id()
    i = b.add(t, bid)
    i = b.sub(i, bd)
    i = b.mul(i, gd)
    i = b.div(i, 3)
    i = b.rem(i, lane)
    i = b.min(i, n)
    i = b.max(-1, i)
    i = b.and_(i, 255)
    i = b.or_(i, 1)
    i = b.xor(i, 2)
    i = b.shl(i, 2)
    i = b.shr(i, 1)
    f = b.load(x, F32)
    f = b.neg(f)
    f = b.exp(f)
    f = b.exp2(f)
    f = b.log(f)
    f = b.sqrt(f)
    f = b.rsqrt(f)
    f = b.readfirstlane(f)
    f = b.fma(f, f, f)
    c = b.cmp("lt", i, n)
    f = b.select(c, f, 0.1)
    f = b.add(f, 3)
    h = b.convert(f, F16)
    bits = b.bitcast(h, T.I16)
    v = b.build([h, h, h, h])
    e = b.extract(v, 3)
    v = b.insert(v, e, 0)
    v = b.insert(v, 1e-5, 1)
    v = b.shuffle(v, v, [0, 1, 4, 5])
    b.barrier()
    moved = b.bpermute(0, f)
    lds = b.lds_alloc(1000, 8)
    q = b.offset(lds, 16)
    b.store(q, moved)
    wide = b.load_wide(x, T.vector(F32, 8))
    b.store_wide(x, wide)
    b.atomic_add(x, f)
    rsrc = b.buffer_rsrc(x, 4096)
    bl = b.buffer_load(rsrc, 0, T.I16)
    mixed = b.xor(bl, bits)
    b.buffer_store(rsrc, 2, mixed)
    fa = b.load(x, T.vector(F16, 4))
    acc = b.load(x, T.vector(F32, 4))
    d = b.mma("mma_16x16x16_f16_f32", fa, fa, acc)
    with b.for_range(0, n, 1, [d]) as loop:
        b.yield_(b.add(loop.iters[0], loop.iters[0]))
    sums = loop.results
    br = b.if_(c, [T.vector(F32, 4)])
    with br.then_():
        b.yield_(sums[0])
    with br.else_():
        b.yield_(d)
    b.store(x, br.results[0])
    with b.if_(c):
        b.store(x, f)
    with b.for_range(n, 64, 4) as loop:
        o = b.offset(x, loop.iv)
        b.store(o, loop.iv)
    with b.for_range(2, 64, 4):
        b.barrier()
    return b.finish()


def wide():
    b = KernelBuilder("wide", arch="gfx1100", workgroup_size=(32, 2, 1), wave_size=32, waves_per_eu=4)
    x = b.arg("x", T.GLOBAL)
    y = b.lds_alloc(64)
    w = b.load_wide(x, T.vector(F16, 32))
    b.store_wide(x, w)
    v = b.load_wide(y, T.vector(I64, 8))
    b.store_wide(y, v)
    return b.finish()


PROGRAMS = {"every_op": every_op, "wide": wide}


def test_programs(dump):
    assert sorted(dump["programs"]) == sorted(PROGRAMS)
    for name, build in PROGRAMS.items():
        assert dump["programs"][name] == lines(build()), name


# -- errors: the same cases as ir_dump.cc, by the name it gives each -------------


def gfx942():
    return KernelBuilder("k", arch="gfx942", workgroup_size=(64, 1, 1))


def _with(make):
    """Runs make(b) on a fresh gfx942 builder."""
    return lambda: make(gfx942())


def _vec(b, n, name="f"):
    f = b.arg(name, F32)
    return b.build([f] * n)


def _finish(make):
    def run(b):
        make(b)
        b.finish()

    return _with(run)


def _loop_without_yield(b):
    with b.for_range(0, 8, 1, [b.arg("f", F32)]):
        b.barrier()


def _loop_yields_iv(b):
    with b.for_range(0, 8, 1, [b.arg("f", F32)]) as loop:
        b.yield_(loop.iv)


def _loop_f32_lo(b):
    with b.for_range(b.arg("f", F32), 8, 1):
        pass


def _loop_hi(b):
    with b.for_range(0, 2.5, 1):
        pass


def _if(b, cond, results, then, else_=None):
    br = b.if_(cond, results)
    with br.then_():
        then()
    if else_ is not None:
        with br.else_():
            else_()


def _if_f32_cond(b):
    _if(b, b.arg("f", F32), [], lambda: None, lambda: None)


def _if_else_yields_i1(b):
    f = b.arg("f", F32)
    c = b.cmp("eq", f, f)
    _if(b, c, [F32], lambda: b.yield_(f), lambda: b.yield_(c))


def _if_then_without_yield(b):
    f = b.arg("f", F32)
    c = b.cmp("eq", f, f)
    _if(b, c, [F32], b.barrier, lambda: b.yield_(f))


def _if_results_no_else(b):
    f = b.arg("f", F32)
    c = b.cmp("eq", f, f)
    _if(b, c, [F32], lambda: b.yield_(f))


def _finish_in_loop(b):
    with b.for_range(0, 4, 1):
        b.finish()


def _lds_in_loop(b):
    with b.for_range(0, 4, 1):
        b.lds_alloc(64)


def _other_kernel(b):
    y = gfx942().arg("y", I32)
    b.neg(y)


def _nest(b, n, depth):
    if depth:
        with b.for_range(0, n, 1):
            _nest(b, n, depth - 1)


def _mma(b, op_id, a_type, c_type, wide=False):
    x = b.arg("x", T.GLOBAL)
    load = b.load_wide if wide else b.load
    a = load(x, a_type)
    c = load(x, c_type)
    b.mma(op_id, a, a, c)


def _args(*args):
    def make(b):
        for name, t in args:
            b.arg(name, t)

    return _finish(make)


ERRORS = {
    "add(1, 2)": _with(lambda b: b.add(1, 2)),
    "max(1.5, None)": _with(lambda b: b.max(1.5, None)),
    "add(vector, 1)": _with(lambda b: b.add(_vec(b, 2), 1)),
    "mul(2.5, ptr)": _with(lambda b: b.mul(2.5, b.arg("p", T.GLOBAL))),
    "const(1.5, i32)": _with(lambda b: b.const(1.5, I32)),
    "const(200, i8)": _with(lambda b: b.const(200, T.I8)),
    "const(-129, i8)": _with(lambda b: b.const(-129, T.I8)),
    "const(2, i1)": _with(lambda b: b.const(2, T.I1)),
    "const(1, lds)": _with(lambda b: b.const(1, T.LDS)),
    "emit(arith.nop)": _with(lambda b: b.emit("arith.nop", [], [])),
    "emit(gpu.lane_id -> f32)": _with(lambda b: b.emit("gpu.lane_id", [], [F32])),
    "emit(gpu.block_id, no dim)": _with(lambda b: b.emit("gpu.block_id", [], [I32])),
    "emit(gpu.lane_id, extra attrs)": _with(lambda b: b.emit("gpu.lane_id", [], [I32], {"x": 1, "a": 2.5})),
    "thread_id(3)": _with(lambda b: b.thread_id(3)),
    "cmp(lq)": _with(lambda b: b.cmp("lq", b.arg("n", I32), 0)),
    "cmp(i32, f32)": _with(lambda b: b.cmp("eq", b.arg("n", I32), b.arg("f", F32))),
    "select(i32 cond)": _with(lambda b: (lambda n: b.select(n, n, 1))(b.arg("n", I32))),
    "add(i1)": _with(lambda b: (lambda n: (lambda c: b.add(c, c))(b.cmp("eq", n, n)))(b.arg("n", I32))),
    "and(f32)": _with(lambda b: b.and_(b.arg("f", F32), 1)),
    "add(fp8)": _with(lambda b: (lambda e: b.add(e, e))(b.load(b.arg("x", T.GLOBAL), T.F8E4M3))),
    "convert(ptr)": _with(lambda b: b.convert(b.arg("p", T.GLOBAL), I64)),
    "convert(lanes)": _with(lambda b: b.convert(_vec(b, 4), T.vector(F16, 2))),
    "bitcast(f32 -> f16)": _with(lambda b: b.bitcast(b.arg("f", F32), F16)),
    "bitcast(i1)": _with(lambda b: (lambda n: b.bitcast(b.cmp("eq", n, n), T.I8))(b.arg("n", I32))),
    "exp(i32)": _with(lambda b: b.exp(b.arg("n", I32))),
    "fma(bf16)": _with(lambda b: (lambda h: b.fma(h, h, h))(b.arg("h", T.BF16))),
    "readfirstlane(f16)": _with(lambda b: b.readfirstlane(b.arg("h", F16))),
    "build(f32, i32)": _with(lambda b: b.build([b.arg("f", F32), b.arg("n", I32)])),
    "build(one)": _with(lambda b: b.build([b.arg("f", F32)])),
    "extract(4)": _with(lambda b: b.extract(_vec(b, 4), 4)),
    "insert(i32 into f32s)": _with(lambda b: (lambda v: b.insert(v, b.arg("n", I32), 1))(_vec(b, 2))),
    "insert(-1)": _with(lambda b: b.insert(_vec(b, 2), 2.0, -1)),
    "shuffle([0, 8])": _with(lambda b: (lambda v: b.shuffle(v, v, [0, 8]))(_vec(b, 4))),
    "shuffle([0])": _with(lambda b: (lambda v: b.shuffle(v, v, [0]))(_vec(b, 4))),
    "shuffle(mixed)": _with(
        lambda b: (lambda f: b.shuffle(b.build([f] * 4), b.build([f] * 2), [0, 1]))(b.arg("f", F32))
    ),
    "bpermute(f16)": _with(lambda b: b.bpermute(4, b.arg("h", F16))),
    "bpermute(i64 address)": _with(lambda b: b.bpermute(b.arg("a", I64), b.arg("f", F32))),
    "lds_alloc(0)": _with(lambda b: b.lds_alloc(0)),
    "lds_alloc(64, 2)": _with(lambda b: b.lds_alloc(64, 2)),
    "offset(buffer)": _with(lambda b: b.offset(b.buffer_rsrc(b.arg("x", T.GLOBAL), 64), 4)),
    "offset(2.5)": _with(lambda b: b.offset(b.arg("x", T.GLOBAL), 2.5)),
    "load(i1)": _with(lambda b: b.load(b.arg("x", T.GLOBAL), T.I1)),
    "load(vector<3xf32>)": _with(lambda b: b.load(b.arg("x", T.GLOBAL), T.vector(F32, 3))),
    "load_wide(vector<3xi64>)": _with(lambda b: b.load_wide(b.arg("x", T.GLOBAL), T.vector(I64, 3))),
    "store(constant)": _with(lambda b: b.store(b.arg("c", T.CONSTANT), b.arg("f", F32))),
    "atomic_add(f16)": _with(lambda b: b.atomic_add(b.arg("x", T.GLOBAL), b.arg("h", F16))),
    "buffer_rsrc(lds)": _with(lambda b: b.buffer_rsrc(b.lds_alloc(64), 64)),
    "buffer_load(12 bytes)": _with(
        lambda b: b.buffer_load(b.buffer_rsrc(b.arg("x", T.GLOBAL), 64), 0, T.vector(F32, 3))
    ),
    "buffer_store(global)": _with(lambda b: b.buffer_store(b.arg("x", T.GLOBAL), 0, b.arg("f", F32))),
    "mma(bad id)": _with(lambda b: _mma(b, "mma_16x16x16_f16_f16", T.vector(F16, 4), T.vector(F32, 4))),
    "mma(f32 A)": _with(
        lambda b: (lambda c: b.mma("mma_16x16x16_f16_f32", c, c, c))(b.load(b.arg("x", T.GLOBAL), T.vector(F32, 4)))
    ),
    "mma(fragments on gfx942)": _finish(lambda b: _mma(b, "mma_16x16x16_f16_f32", T.vector(F16, 8), T.vector(F32, 4))),
    "mma(not on gfx1100)": lambda: (
        lambda b: (_mma(b, "mma_32x32x8_f16_f32", T.vector(F16, 4), T.vector(F32, 4)), b.finish())
    )(KernelBuilder("k", arch="gfx1100", workgroup_size=(64, 1, 1))),
    "mma(wave64 on gfx1100)": lambda: (
        lambda b: (_mma(b, "mma_16x16x16_f16_f32", T.vector(F16, 16), T.vector(F32, 8), wide=True), b.finish())
    )(KernelBuilder("k", arch="gfx1100", workgroup_size=(64, 1, 1), wave_size=64)),
    "for_range(carried, no yield)": _with(_loop_without_yield),
    "for_range(yields i32 for f32)": _with(_loop_yields_iv),
    "for_range(f32 lo)": _with(_loop_f32_lo),
    "for_range(hi 2.5)": _with(_loop_hi),
    "if_(f32 cond)": _with(_if_f32_cond),
    "if_(else yields i1)": _with(_if_else_yields_i1),
    "if_(then without yield)": _with(_if_then_without_yield),
    "if_(results, no else)": _finish(_if_results_no_else),
    "finish() inside for_range": _with(_finish_in_loop),
    "yield_() at top level": _finish(lambda b: b.yield_()),
    "lds_alloc in a loop": _finish(_lds_in_loop),
    "lds total": _finish(lambda b: (b.lds_alloc(40000, 4), b.lds_alloc(30001))),
    "value of another kernel": _finish(_other_kernel),
    "nesting 101": _finish(lambda b: _nest(b, b.arg("n", I32), 100)),
    "kernel name 9k": lambda: KernelBuilder("9k", arch="gfx942", workgroup_size=(64, 1, 1)).finish(),
    "workgroup [64, 32, 1]": lambda: KernelBuilder("k", arch="gfx942", workgroup_size=(64, 32, 1)).finish(),
    "wave_size 32 on gfx942": lambda: KernelBuilder(
        "k", arch="gfx942", workgroup_size=(64, 1, 1), wave_size=32
    ).finish(),
    "waves_per_eu 9 on gfx942": lambda: KernelBuilder(
        "k", arch="gfx942", workgroup_size=(64, 1, 1), waves_per_eu=9
    ).finish(),
    "arch gfx943": lambda: KernelBuilder("k", arch="gfx943", workgroup_size=(64, 1, 1)),
    "argument vector<4xf32>": _args(("v", T.vector(F32, 4))),
    "argument ptr<buffer>": _args(("r", T.BUFFER)),
    "argument f8e5m2": _args(("e", T.F8E5M2)),
    "arguments x, x": _args(("x", I32), ("x", F32)),
    "argument it's": _args(("it's", I32)),
}


def test_errors(dump):
    assert sorted(dump["errors"]) == sorted(ERRORS)
    for case, make in ERRORS.items():
        with pytest.raises((VerifyError, archs.UnknownArchError)) as e:
            make()
        check_parity(e.value, dump["errors"][case], case)
