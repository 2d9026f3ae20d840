"""Random kernels over every scalar and vector type and every op of the registry.

    case = generate(RandomChoices(seed), faults=0.05)
    case.kernel   # a verified Kernel, or None
    case.error    # the VerifyError that rejected it, or None

The generator draws an op from the registry, then types for its operands
from every type (i1..i64, f16, bf16, f32, fp8 and vectors of them, the five
pointer kinds), and asks the builder for it: the op rules, not the
generator, decide what is legal. An op the rules reject is undone, except
that with probability `faults` it is kept and ends the kernel as a case the
verifier rejects; `faults` also sets how often the kernel's attributes,
names, LDS budget and matrix op ids are drawn out of range. With faults=0
every case is a verified kernel.

Choices come from a source: RandomChoices (a seeded random.Random, for the
100,000-example bench) or strategies.py's hypothesis source (which shrinks).
"""

import dataclasses
import math
import random

from arch import arch as archs
from arch.lds_ops import LDS_OPS
from ir import mma
from ir import types as T
from ir.builder import KernelBuilder
from ir.core import VerifyError
from ir.ops import CMP_PREDICATES

SCALARS = tuple(T.SCALARS.values())
NUMERIC_SCALARS = tuple(t for t in SCALARS if not T.is_fp8(t))
POINTERS = tuple(T.ptr(space) for space in T.ADDRESS_SPACES)
LENGTHS = (2, 3, 4, 8, 16, T.MAX_LANES)
FLOATS = (0.0, -0.0, 1.0, -2.5, 0.1, 1e-8, 65504.0, 3.0e38, 1e300, math.inf, -math.inf, math.nan)
ARCHS = tuple(sorted(archs.ARCHS))
# Every op id some arch has: a kernel may ask for one its arch lacks.
MMA_IDS = tuple(sorted({m.op for info in archs.ARCHS.values() for m in info.matrix}))


class RandomChoices:
    """Choices from a seeded random.Random: the same seed, the same kernel."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choice(self, seq):
        return self.rng.choice(seq)

    def integer(self, lo, hi):
        return self.rng.randint(lo, hi)

    def chance(self, p):
        return self.rng.random() < p


@dataclasses.dataclass
class Case:
    kernel: object  # the verified Kernel, or None
    error: VerifyError | None = None  # why the verifier rejected it


class _Skip(Exception):
    """No value of a needed type is in scope: drop this op, it is no fault."""


class _Kept(Exception):
    """A rejected op kept as the kernel's fault: the case ends with its error."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


class _Gen:
    def __init__(self, src, faults):
        self.src = src
        self.faults = faults
        self.depth = 0
        self.lds_left = 0

    def fault(self):
        return self.faults > 0 and self.src.chance(self.faults)

    # -- types and values ----------------------------------------------------

    def scalar(self):
        return self.src.choice(SCALARS if self.fault() else NUMERIC_SCALARS)

    def numeric(self):
        elem = self.src.choice(SCALARS)
        return elem if self.src.chance(0.6) else T.vector(elem, self.src.choice(LENGTHS))

    def any_type(self):
        return self.src.choice(POINTERS) if self.src.chance(0.15) else self.numeric()

    def integer_in(self, t):
        lo, hi = T.int_range(t)
        if self.fault():
            return self.src.choice((hi + 1, lo - 1))
        return self.src.choice((lo, hi, 0, 1, max(lo, -1), min(hi, self.src.integer(0, 100))))

    def value(self, pool, t):
        have = pool.get(t)
        if have and self.src.chance(0.7):
            return self.src.choice(have)
        b = self.b
        if isinstance(t, T.PtrType):
            return self.pointer(pool, t)
        if isinstance(t, T.VectorType):
            return (
                b.build([self.value(pool, t.elem) for _ in range(t.n)])
                if t.n <= 4
                else b.build([self.value(pool, t.elem)] * t.n)
            )
        if T.is_fp8(t):
            return b.convert(self.value(pool, T.F32), t)
        if t.is_int:
            return b.const(self.integer_in(t), t)
        return b.const(self.src.choice(FLOATS), t)

    def pointer(self, pool, t):
        if t is T.BUFFER:
            return self.b.buffer_rsrc(self.value(pool, T.GLOBAL), self.value(pool, T.I32))
        if t is T.LDS and self.depth == 0:
            return self.b.lds_alloc(self.lds_bytes(16), 16)
        if pool.get(t):
            return self.src.choice(pool[t])
        raise _Skip(t)

    def lds_bytes(self, align):
        """A size for one more LDS allocation: within the arch's budget, but for a fault."""
        n = (
            self.src.choice((self.lds_left + align, 1 << 20))
            if self.fault()
            else min(self.lds_left // align * align, self.src.choice((4, 64, 256, 4096)))
        )
        if n < 1:
            raise _Skip("LDS budget")
        self.lds_left -= -(-n // align) * align
        return n

    # -- ops -----------------------------------------------------------------

    def ops(self, pool, count):
        """Emits `count` random op attempts into the current block, adding results to `pool`."""
        for _ in range(count):
            block = self.b._blocks[-1]
            mark, lds_left = len(block.ops), self.lds_left
            name = self.src.choice(OP_NAMES)
            try:
                results = MAKERS[name](self, pool)
            except (_Skip, VerifyError) as e:
                if isinstance(e, VerifyError) and self.fault():
                    raise _Kept(e) from None
                del block.ops[mark:]  # undo the attempt, constants and all
                self.lds_left = lds_left
                continue
            for r in results or ():
                pool.setdefault(r.type, []).append(r)

    def region(self, pool, extra, types_):
        """The body of a for or if arm: ops over `pool` and `extra`, then a yield of `types_`."""
        inner = {t: list(vs) for t, vs in pool.items()}
        for v in extra:
            inner.setdefault(v.type, []).append(v)
        self.depth += 1
        try:
            self.ops(inner, self.src.integer(0, 4))
            values = [self.value(inner, t) for t in types_]
            if values and self.fault():
                values[0] = self.value(inner, self.any_type())
            self.b.yield_(*values)
        finally:
            self.depth -= 1


def _binary(method):
    def make(g, pool):
        t = g.numeric()
        other = g.numeric() if g.fault() else t
        return [getattr(g.b, method)(g.value(pool, t), g.value(pool, other))]

    return make


def _unary(method):
    def make(g, pool):
        return [getattr(g.b, method)(g.value(pool, g.numeric()))]

    return make


def _const(g, pool):
    t = g.scalar()
    value = g.integer_in(t) if t.is_int else g.src.choice(FLOATS)
    return [g.b.const(value, t)]


def _cmp(g, pool):
    t = g.numeric()
    pred = "ult" if g.fault() else g.src.choice(CMP_PREDICATES)
    return [g.b.cmp(pred, g.value(pool, t), g.value(pool, t))]


def _select(g, pool):
    t = g.any_type()
    cond = g.value(pool, g.any_type() if g.fault() else T.I1)
    return [g.b.select(cond, g.value(pool, t), g.value(pool, t))]


def _convert(g, pool):
    src = g.numeric()
    dst = T.with_element(src, g.src.choice(SCALARS)) if not g.fault() else g.numeric()
    return [g.b.convert(g.value(pool, src), dst)]


def _bitcast(g, pool):
    src = g.numeric()
    same_size = [t for t in SCALARS if t.nbytes == src.nbytes] + [
        T.vector(e, src.nbytes // e.nbytes)
        for e in SCALARS
        if 2 <= src.nbytes // e.nbytes <= T.MAX_LANES and src.nbytes % e.nbytes == 0
    ]
    dst = g.src.choice(same_size) if same_size and not g.fault() else g.numeric()
    return [g.b.bitcast(g.value(pool, src), dst)]


def _fma(g, pool):
    t = g.numeric()
    return [g.b.fma(g.value(pool, t), g.value(pool, t), g.value(pool, t))]


def _build(g, pool):
    elem, n = g.src.choice(SCALARS), g.src.choice(LENGTHS)
    return [g.b.build([g.value(pool, elem)] * n)]


def _vector(g):
    return T.vector(g.src.choice(SCALARS), g.src.choice(LENGTHS))


def _index(g, n):
    return n if g.fault() else g.src.integer(0, n - 1)


def _extract(g, pool):
    t = _vector(g)
    return [g.b.extract(g.value(pool, t), _index(g, t.n))]


def _insert(g, pool):
    t = _vector(g)
    return [g.b.insert(g.value(pool, t), g.value(pool, t.elem), _index(g, t.n))]


def _shuffle(g, pool):
    t = _vector(g)
    length = g.src.choice((2, 3, 4, 8, T.MAX_LANES + 1 if g.fault() else T.MAX_LANES))
    mask = [g.src.integer(0, 2 * t.n - (0 if g.fault() else 1)) for _ in range(length)]
    return [g.b.shuffle(g.value(pool, t), g.value(pool, t), mask)]


def _gpu_id(method):
    def make(g, pool):
        return [getattr(g.b, method)(3 if g.fault() else g.src.integer(0, 2))]

    return make


def _bpermute(g, pool):
    addr = g.value(pool, g.any_type() if g.fault() else T.I32)
    return [g.b.bpermute(addr, g.value(pool, g.numeric()))]


def _lds_alloc(g, pool):
    if g.depth and not g.fault():
        raise _Skip("LDS in a region")
    align = g.src.choice((2, 32)) if g.fault() else g.src.choice((4, 8, 16))
    return [g.b.lds_alloc(g.lds_bytes(align), align)]


def _offset(g, pool):
    p = g.value(pool, g.src.choice(POINTERS))
    off = g.value(pool, g.any_type() if g.fault() else g.src.choice((T.I32, T.I64)))
    return [g.b.emit("mem.offset", [p, off], [p.type]).results[0]]


def _load(g, pool):
    return [g.b.load(g.value(pool, g.src.choice(POINTERS)), g.numeric())]


def _store(g, pool):
    g.b.store(g.value(pool, g.src.choice(POINTERS)), g.value(pool, g.numeric()))


def _arch_limited(g, name):
    """Arch-limited ops appear where the arch has them, elsewhere only as a fault
    (the lowering refuses them: ArchDomainError)."""
    if g.b.arch.name not in LDS_OPS[name].archs and not g.fault():
        raise _Skip(f"no {name} on this arch")


def _load_transpose(g, pool):
    _arch_limited(g, "mem.load_transpose")
    if g.fault():
        return [g.b.emit("mem.load_transpose", [g.value(pool, g.src.choice(POINTERS))], [g.numeric()]).results[0]]
    return [g.b.load_transpose(g.value(pool, T.LDS), g.src.choice((T.F16, T.BF16, T.I16)))]


def _load_to_lds(g, pool):
    _arch_limited(g, "mem.load_to_lds")
    src, dst = (g.src.choice(POINTERS), g.src.choice(POINTERS)) if g.fault() else (T.GLOBAL, T.LDS)
    g.b.load_to_lds(g.value(pool, src), g.value(pool, dst))


def _buffer_load_to_lds(g, pool):
    _arch_limited(g, "buffer.load_to_lds")
    src, dst = (g.src.choice(POINTERS), g.src.choice(POINTERS)) if g.fault() else (T.BUFFER, T.LDS)
    g.b.emit(
        "buffer.load_to_lds", [g.value(pool, src), g.value(pool, T.I32), g.value(pool, T.I32), g.value(pool, dst)], []
    )


def _atomic_add(g, pool):
    p = g.value(pool, g.src.choice(POINTERS))
    return [g.b.atomic_add(p, g.value(pool, g.numeric() if g.fault() else g.src.choice((T.I32, T.F32))))]


def _rsrc(g, pool):
    return [g.b.buffer_rsrc(g.value(pool, T.GLOBAL), g.value(pool, T.I32))]


def _buffer_load(g, pool):
    return [g.b.buffer_load(g.value(pool, T.BUFFER), g.value(pool, T.I32), g.numeric())]


def _buffer_store(g, pool):
    g.b.buffer_store(g.value(pool, T.BUFFER), g.value(pool, T.I32), g.value(pool, g.numeric()))


def _mma(g, pool):
    arch = g.b.arch
    fits = [m.op for m in arch.matrix if m.wave == g.b.wave_size]
    if not fits and not g.fault():
        raise _Skip("no matrix op for this wave size")
    op_id = g.src.choice(MMA_IDS if g.fault() or not fits else fits)
    # An id this arch's generation lacks (a fault) takes the fragments of the
    # first generation that has it: the verifier, not a KeyError here, refuses it.
    generations = sorted(generation for (oid, generation) in mma.FORMS if oid == op_id)
    a_t, b_t, c_t = mma.fragment_types(op_id, arch.generation if arch.generation in generations else generations[0])
    return [g.b.mma(op_id, g.value(pool, a_t), g.value(pool, b_t), g.value(pool, c_t))]


def _for(g, pool):
    if g.depth >= 2:
        raise _Skip("deep enough")
    carried = [g.value(pool, g.any_type()) for _ in range(g.src.integer(0, 2))]
    step = g.value(pool, T.I32) if g.src.chance(0.3) else 1
    with g.b.for_range(g.value(pool, T.I32), g.value(pool, T.I32), step, carried) as loop:
        g.region(pool, [loop.iv, *loop.iters], [v.type for v in carried])
    return loop.results


def _if(g, pool):
    if g.depth >= 2:
        raise _Skip("deep enough")
    types_ = [g.any_type() for _ in range(g.src.integer(0, 2))]
    br = g.b.if_(g.value(pool, T.I1), types_)
    for arm in (br.then_, br.else_):
        with arm():
            g.region(pool, [], types_)
    return br.results


# Op name -> maker(gen, pool) -> the new values. Every op of the registry
# (scf.yield comes with for and if); fuzz_test checks the two agree
# (test_the_generator_makes_every_op_of_the_registry).
MAKERS = {
    "arith.const": _const,
    **{
        f"arith.{m}": _binary(m)
        for m in ("add", "sub", "mul", "div", "rem", "udiv", "urem", "min", "max", "xor", "shl", "shr")
    },
    "arith.and": _binary("and_"),
    "arith.or": _binary("or_"),
    "arith.neg": _unary("neg"),
    "arith.cmp": _cmp,
    "arith.select": _select,
    "arith.convert": _convert,
    "arith.bitcast": _bitcast,
    **{f"math.{m}": _unary(m) for m in ("exp", "exp2", "log", "sqrt", "rsqrt")},
    "math.fma": _fma,
    "vector.build": _build,
    "vector.extract": _extract,
    "vector.insert": _insert,
    "vector.shuffle": _shuffle,
    **{f"gpu.{m}": _gpu_id(m) for m in ("thread_id", "block_id", "block_dim", "grid_dim")},
    "gpu.lane_id": lambda g, pool: [g.b.lane_id()],
    "gpu.barrier": lambda g, pool: g.b.barrier(),
    "gpu.lds_barrier": lambda g, pool: g.b.lds_barrier(),
    "gpu.sched_barrier": lambda g, pool: g.b.sched_barrier(),
    "lane.readfirstlane": _unary("readfirstlane"),
    "lane.bpermute": _bpermute,
    "mem.lds_alloc": _lds_alloc,
    "mem.offset": _offset,
    "mem.load": _load,
    "mem.store": _store,
    "mem.load_transpose": _load_transpose,
    "mem.load_to_lds": _load_to_lds,
    "mem.atomic_add": _atomic_add,
    "buffer.rsrc": _rsrc,
    "buffer.load": _buffer_load,
    "buffer.store": _buffer_store,
    "buffer.load_to_lds": _buffer_load_to_lds,
    "matrix.mma": _mma,
    "scf.for": _for,
    "scf.if": _if,
}
OP_NAMES = tuple(sorted(MAKERS))


# What a faulty kernel gets wrong, at most one per kernel.
KERNEL_FAULTS = ("wave_size", "workgroup_size", "waves_per_eu", "name", "argument type", "argument name")


def _kernel_builder(g, bad):
    src = g.src
    info = archs.get(src.choice(ARCHS))
    wave = src.choice((32, 64, 48)) if bad == "wave_size" else src.choice(info.wave_sizes)
    size = (
        (info.max_workgroup_size, 2, 1)
        if bad == "workgroup_size"
        else (src.choice((32, 64, 256, info.max_workgroup_size)), 1, 1)
    )
    lo, hi = info.waves_per_eu
    waves = hi + 1 if bad == "waves_per_eu" else None if src.chance(0.7) else src.integer(lo, hi)
    name = src.choice(("k-1", "2k", "ké")) if bad == "name" else "k" + str(src.integer(0, 999))
    g.lds_left = info.lds_bytes
    return KernelBuilder(name, arch=info.name, workgroup_size=size, wave_size=wave, waves_per_eu=waves)


def generate(src, faults=0.0):
    """One Case drawn from `src` (see the module docstring)."""
    g = _Gen(src, faults)
    bad = g.fault() and src.choice(KERNEL_FAULTS)
    try:
        g.b = b = _kernel_builder(g, bad)
        pool = {}
        for i in range(src.integer(0, 4)):
            t = (
                g.any_type()
                if bad == "argument type"
                else src.choice(NUMERIC_SCALARS + (T.GLOBAL, T.CONSTANT, T.PRIVATE))
            )
            pool.setdefault(t, []).append(b.arg("é" if bad == "argument name" else f"a{i}", t))
        pool.setdefault(T.GLOBAL, []).append(b.arg("out", T.GLOBAL))
        g.ops(pool, src.integer(1, 14))
        return Case(b.finish())
    except _Kept as kept:
        return Case(None, kept.error)
    except VerifyError as e:  # the kernel's attributes, names or arguments, at finish()
        return Case(None, e)
