"""Hypothesis strategies: random well-formed kernels, and ways to break them."""

import dataclasses

from hypothesis import strategies as st

from ir import types as T
from ir.builder import KernelBuilder
from ir.core import Op, Value, walk

NUMERIC = (T.I32, T.F32, T.F16, T.I64, T.BF16)


class _Gen:
    """Emits random ops into a builder, drawing operands from typed pools."""

    def __init__(self, draw, b):
        self.draw = draw
        self.b = b

    def pick(self, pool, type_):
        values = pool.get(type_)
        if not values:
            value = self.b.const(self.draw(st.integers(-100, 100)), type_)
            pool.setdefault(type_, []).append(value)
            return value
        return self.draw(st.sampled_from(values))

    def add(self, pool, value):
        pool.setdefault(value.type, []).append(value)

    def ops(self, pool, depth, count):
        for _ in range(count):
            kind = self.draw(st.sampled_from(["binary", "binary", "cmp", "convert", "vector", "memory", "id", "for", "if", "math"]))
            getattr(self, "emit_" + kind)(pool, depth)

    def emit_binary(self, pool, depth):
        t = self.draw(st.sampled_from(NUMERIC))
        name = self.draw(st.sampled_from(["add", "sub", "mul", "min", "max"]))
        self.add(pool, getattr(self.b, name)(self.pick(pool, t), self.pick(pool, t)))

    def emit_cmp(self, pool, depth):
        t = self.draw(st.sampled_from(NUMERIC))
        a, c = self.pick(pool, t), self.pick(pool, t)
        cond = self.b.cmp(self.draw(st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge"])), a, c)
        self.add(pool, self.b.select(cond, a, c))

    def emit_convert(self, pool, depth):
        src, dst = self.draw(st.sampled_from(NUMERIC)), self.draw(st.sampled_from(NUMERIC + (T.F8E4M3, T.F8E5M2)))
        self.add(pool, self.b.convert(self.pick(pool, src), dst))

    def emit_vector(self, pool, depth):
        t = self.draw(st.sampled_from((T.F32, T.F16, T.I32)))
        n = self.draw(st.sampled_from([2, 4]))
        v = self.b.build([self.pick(pool, t) for _ in range(n)])
        self.add(pool, self.b.extract(v, self.draw(st.integers(0, n - 1))))

    def emit_memory(self, pool, depth):
        t = self.draw(st.sampled_from((T.F32, T.F16, T.I32)))
        p = self.b.offset(self.pick(pool, T.GLOBAL), self.pick(pool, T.I32))
        if self.draw(st.booleans()):
            self.add(pool, self.b.load(p, t))
        else:
            self.b.store(p, self.pick(pool, t))

    def emit_id(self, pool, depth):
        kind = self.draw(st.sampled_from(["thread_id", "block_id", "block_dim", "grid_dim"]))
        self.add(pool, getattr(self.b, kind)(self.draw(st.integers(0, 2))))

    def emit_math(self, pool, depth):
        x = self.pick(pool, T.F32)
        self.add(pool, getattr(self.b, self.draw(st.sampled_from(["exp", "log", "sqrt", "rsqrt"])))(x))

    def emit_for(self, pool, depth):
        if depth >= 2:
            return self.emit_binary(pool, depth)
        carried = [self.pick(pool, self.draw(st.sampled_from(NUMERIC))) for _ in range(self.draw(st.integers(0, 2)))]
        with self.b.for_range(self.pick(pool, T.I32), self.pick(pool, T.I32), 1, carried) as loop:
            inner = {t: list(vs) for t, vs in pool.items()}
            for v in [loop.iv, *loop.iters]:
                self.add(inner, v)
            self.ops(inner, depth + 1, self.draw(st.integers(0, 3)))
            self.b.yield_(*[self.pick(inner, v.type) for v in carried])
        for r in loop.results:
            self.add(pool, r)

    def emit_if(self, pool, depth):
        if depth >= 2:
            return self.emit_binary(pool, depth)
        types_ = [self.draw(st.sampled_from(NUMERIC)) for _ in range(self.draw(st.integers(0, 2)))]
        br = self.b.if_(self.b.cmp("lt", self.pick(pool, T.I32), self.pick(pool, T.I32)), types_)
        for arm in (br.then_, br.else_):
            with arm():
                inner = {t: list(vs) for t, vs in pool.items()}
                self.ops(inner, depth + 1, self.draw(st.integers(0, 2)))
                self.b.yield_(*[self.pick(inner, t) for t in types_])
        for r in br.results:
            self.add(pool, r)


@st.composite
def kernels(draw):
    """A random kernel that verifies."""
    arch, wave = draw(st.sampled_from([("gfx942", 64), ("gfx950", 64), ("gfx1201", 32), ("gfx1250", 32)]))
    b = KernelBuilder(draw(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)), arch=arch, wave_size=wave, workgroup_size=(draw(st.sampled_from([32, 64, 256])), 1, 1))
    pool = {}
    for i, t in enumerate(draw(st.lists(st.sampled_from([T.I32, T.F32, T.GLOBAL]), min_size=1, max_size=4))):
        pool.setdefault(t, []).append(b.arg(f"a{i}", t))
    pool.setdefault(T.GLOBAL, []).append(b.arg("out", T.GLOBAL))
    _Gen(draw, b).ops(pool, 0, draw(st.integers(1, 12)))
    return b.finish()


def _with_result_type(op, new_type):
    return dataclasses.replace(op, results=(Value(new_type),) + op.results[1:])


# Each mutation turns a verified kernel into one that must fail verification.
def _rename_op(kernel, op, block):
    block.ops[block.ops.index(op)] = dataclasses.replace(op, name="bogus." + op.name)


def _wrong_result_type(kernel, op, block):
    t = op.results[0].type
    block.ops[block.ops.index(op)] = _with_result_type(op, T.I8 if t is not T.I8 else T.I16)


def _bad_wave_size(kernel, op, block):
    kernel.attrs["wave_size"] = 48


def _use_undefined(kernel, op, block):
    if op.operands:
        stray = Value(op.operands[0].type)
        block.ops[block.ops.index(op)] = dataclasses.replace(op, operands=(stray,) + op.operands[1:])
    else:
        block.ops.insert(0, Op("arith.add", (Value(T.I32), Value(T.I32)), (Value(T.I32),), {}))


MUTATIONS = {
    "rename_op": _rename_op,
    "wrong_result_type": _wrong_result_type,
    "bad_wave_size": _bad_wave_size,
    "use_undefined": _use_undefined,
}


def blocks_of(kernel):
    yield kernel.body
    for op in walk(kernel.body):
        yield from op.regions


@st.composite
def malformed_kernels(draw):
    """(kernel, mutation name): a random kernel broken by one mutation."""
    kernel = draw(kernels())
    candidates = [(op, blk) for blk in blocks_of(kernel) for op in blk.ops if op.results and op.name not in ("scf.for", "scf.if")]
    name = draw(st.sampled_from(sorted(MUTATIONS)))
    if not candidates:
        name = "bad_wave_size"
        op, blk = None, None
    else:
        op, blk = draw(st.sampled_from(candidates))
    MUTATIONS[name](kernel, op, blk)
    return kernel, name
