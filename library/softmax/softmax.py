"""softmax: y = softmax(scale * x + mask) over the last dimension, row by row.

A row lives in a group of consecutive lanes of one wave (softmax.plan): the next
power of two of its vectors, at most the wave, so that a short row (BERT's
128) does not leave most of a wave idle and its reductions take only
log2(group) exchanges (tile.softmax.butterfly). A lane moves `vector`
elements a load or store: 16 bytes where dim allows (SoftmaxSpec.vector);
the last vectors of a row whose vectors do not fill its lanes evenly are
read through a buffer (zero past the row's end, then -inf) and stored
through it (nothing past the end). Statistics are f32 in log2 units: without
a mask the max is taken of the raw values and the scale folds into the
exponent's fma (tile.softmax.scaled_exp); with one, each value becomes
scale log2(e) x + log2(e) mask first.

  - One pass, where a lane's share of the row (per_lane vectors) fits
    SoftmaxSpec.lane_elements: the row is read once into registers, its max
    and sum reduced across the group, and written once.
  - Two passes otherwise: an online pass over the row, `step` vectors a lane
    at a time, keeps a lane's running max and sum (rescaled whenever the max
    grows); the group combines them (the sums rescaled to the group's max);
    a second pass reads the row again and writes it.

A row whose every element is -inf (a fully masked row) keeps its max at
-inf; the exponent is then taken against 0, so it sums to 0 and is written
as zeros, never NaN. Lanes of a group past the last row read the last row
(every lane of a wave takes part in the exchanges) and write nothing.

    softmax_<case id>(x, y, [mask,] rows: i32)
"""

import numpy as np

from family import bound
from family.family import Family, NumericCheck
from interp.numerics import round_bf16
from ir import types as T
from ir.builder import KernelBuilder
from softmax.cases import cases
from softmax.family_names import NAMES
from softmax.plan import plan
from softmax.spec import ELEM
from tile import softmax

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]
NEG_INF = float("-inf")
# The most bytes one load or store moves.
_WIDEST = 16


class _Kernel:
    """The builder state of one softmax kernel: its row, this lane's place in it, and the reads and writes."""

    def __init__(self, case):
        spec = self.spec = case.spec
        p = self.plan = plan(spec, case.arch)
        self.elem = ELEM[spec.dtype]
        self.eb = self.elem.nbytes
        b = self.b = KernelBuilder(
            NAME + "_" + case.id, arch=case.arch, workgroup_size=(spec.waves * p.wave, 1, 1), wave_size=p.wave
        )
        x, y = b.arg("x", T.GLOBAL), b.arg("y", T.GLOBAL)
        mask = b.arg("mask", T.GLOBAL) if spec.mask else None
        self.rows = b.arg("rows", T.I32)
        tid = b.thread_id(0)
        self.row = b.add(b.mul(b.block_id(0), p.rows_per_block), b.udiv(tid, p.group))
        self.col = b.mul(b.urem(tid, p.group), p.vector)  # this lane's first element of the row
        read = b.min(self.row, b.sub(self.rows, 1))  # past the last row: read it, write nothing
        at = b.mul(read, spec.dim)
        self.x = b.offset(x, b.mul(at, self.eb))
        self.y = b.offset(y, b.mul(at, self.eb))
        self.mask = b.offset(mask, b.mul(at, 4)) if mask is not None else None
        self.scale = spec.scale_value
        self.scale2 = self.scale * softmax.LOG2E  # the values in log2 units, as the statistics
        self.rsrc = {}

    def buffer(self, name, base, elem_bytes):
        """The buffer of this row of tensor `name` (made once, where a guarded access first needs it)."""
        if name not in self.rsrc:
            self.rsrc[name] = self.b.buffer_rsrc(base, self.spec.dim * elem_bytes)
        return self.rsrc[name]

    def _f32(self, name, base, elem, at, guarded):
        """The f32 values of the vector of `elem` at element `at` of this row of tensor `name`, in loads of
        at most 16 bytes (through the row's buffer when guarded: zeros past its end)."""
        b, n = self.b, self.plan.vector
        per = min(n, _WIDEST // elem.nbytes)
        type_ = T.vector(elem, per) if per > 1 else elem
        out = []
        for i in range(0, n, per):
            bytes_ = b.mul(b.add(at, i), elem.nbytes)
            if guarded:
                v = b.buffer_load(self.buffer(name, base, elem.nbytes), bytes_, type_)
            else:
                v = b.load(b.offset(base, bytes_), type_)
            if per == 1:
                out.append(b.convert(v, T.F32))
                continue
            wide = b.convert(v, T.vector(T.F32, per))
            for j in range(per):
                out.append(b.extract(wide, j))
        return out

    def read(self, k, guarded):
        """This lane's vector at element col + k of the row, as f32: the raw values without a mask, else
        in log2 units with the mask added; -inf past the row's end when guarded."""
        b = self.b
        at = b.add(self.col, k)
        values = self._f32("x", self.x, self.elem, at, guarded)
        if self.mask is not None:
            adds = self._f32("mask", self.mask, T.F32, at, guarded)
            log2e = b.const(softmax.LOG2E, T.F32)
            values = [b.fma(a, log2e, b.mul(v, self.scale2)) for v, a in zip(values, adds)]
        if guarded:
            inside = b.cmp("lt", at, self.spec.dim)
            values = [b.select(inside, v, NEG_INF) for v in values]
        return values

    def top(self, values):
        """The max of `values` in log2 units."""
        top = _reduce(self.b, values, self.b.max)
        return top if self.mask is not None else self.b.mul(top, self.scale2)

    def exps(self, values, m):
        """2^(value - m) of values as read(), m in log2 units."""
        b = self.b
        if self.mask is not None:
            return [b.exp2(b.sub(v, m)) for v in values]
        return [softmax.scaled_exp(b, v, self.scale, m) for v in values]

    def write(self, k, values, inv, guarded):
        """values x inv, in the input type, to this lane's vector at element col + k of the row."""
        b = self.b
        at = b.add(self.col, k)
        out = [b.mul(v, inv) for v in values]
        v = softmax.repack(b, out, self.elem) if len(out) > 1 else b.convert(out[0], self.elem)
        bytes_ = b.mul(at, self.eb)
        if guarded:
            b.buffer_store(self.buffer("y", self.y, self.eb), bytes_, v)
        else:
            b.store(b.offset(self.y, bytes_), v)

    def guarded(self, j, start=0):
        """Whether the j-th vector a lane holds from vector `start` of the row may lie past its end."""
        return start + (j + 1) * self.plan.group > self.plan.vectors


def _reduce(b, values, combine):
    """`combine` over `values` as a balanced tree."""
    values = list(values)
    while len(values) > 1:
        values = [combine(x, y) for x, y in zip(values[::2], values[1::2])] + values[len(values) // 2 * 2 :]
    return values[0]


def _finite(b, m):
    """m, or 0 where m is -inf (nothing seen): the exponents are taken against it."""
    return b.select(b.cmp("eq", m, NEG_INF), 0.0, m)


def build(case):
    kern = _Kernel(case)
    if kern.plan.one_pass:
        _one_pass(kern)
    else:
        _two_pass(kern)
    return kern.b.finish()


def _one_pass(kern):
    b, p = kern.b, kern.plan
    span = p.group * p.vector
    held = [kern.read(j * span, kern.guarded(j)) for j in range(p.per_lane)]
    flat = [v for vec in held for v in vec]
    m = _finite(b, softmax.butterfly(b, kern.top(flat), b.max, 1, p.group))
    e = kern.exps(flat, m)
    total = softmax.butterfly(b, _reduce(b, e, b.add), b.add, 1, p.group)
    inv = softmax.reciprocal(b, total)
    with b.if_(b.cmp("lt", kern.row, kern.rows)):
        for j in range(p.per_lane):
            kern.write(j * span, e[j * p.vector : (j + 1) * p.vector], inv, kern.guarded(j))


def _two_pass(kern):
    b, p = kern.b, kern.plan
    span = p.group * p.vector  # elements of one vector a lane
    chunk = p.step * span  # elements of one step
    whole = p.vectors // (p.step * p.group)  # steps that lie wholly inside the row
    tail_start = whole * p.step * p.group  # the first vector after them
    tail = -(-(p.vectors - tail_start) // p.group)  # vectors a lane holds of the rest

    def update(m, l, values):
        """The running max and sum after `values` (f32, as read())."""
        m_new = b.max(m, kern.top(values))
        m_use = _finite(b, m_new)
        e = kern.exps(values, m_use)
        return m_new, b.add(b.mul(l, b.exp2(b.sub(m, m_use))), _reduce(b, e, b.add))

    m, l = b.const(NEG_INF, T.F32), b.const(0.0, T.F32)
    if whole:
        with b.for_range(0, whole * chunk, chunk, [m, l]) as loop:
            values = []
            for j in range(p.step):
                values += kern.read(b.add(loop.iv, j * span), False)
            b.yield_(*update(*loop.iters, values))
        m, l = loop.results
    if tail:
        values = []
        for j in range(tail):
            values += kern.read(tail_start * p.vector + j * span, kern.guarded(j, tail_start))
        m, l = update(m, l, values)
    top = _finite(b, softmax.butterfly(b, m, b.max, 1, p.group))
    total = softmax.butterfly(b, b.mul(l, b.exp2(b.sub(m, top))), b.add, 1, p.group)
    inv = softmax.reciprocal(b, total)
    with b.if_(b.cmp("lt", kern.row, kern.rows)):
        if whole:
            with b.for_range(0, whole * chunk, chunk) as again:
                for j in range(p.step):
                    k = b.add(again.iv, j * span)
                    kern.write(k, kern.exps(kern.read(k, False), top), inv, False)
        for j in range(tail):
            k = tail_start * p.vector + j * span
            guarded = kern.guarded(j, tail_start)
            kern.write(k, kern.exps(kern.read(k, guarded), top), inv, guarded)


# -- numbers --------------------------------------------------------------------------


def encode(x, dtype):
    """float data -> what the kernel reads (f16, bf16 bits, f32), and its exact values."""
    if dtype == "f16":
        h = x.astype(np.float16)
        return h, h.astype(np.float64)
    r = round_bf16(x.astype(np.float32)) if dtype == "bf16" else x.astype(np.float32)
    if dtype == "bf16":
        return (r.view(np.uint32) >> 16).astype(np.uint16), r.astype(np.float64)
    return r, r.astype(np.float64)


POISON = {"f16": (np.float16, np.nan), "bf16": (np.uint16, 0x7FC0), "f32": (np.float32, np.nan)}
# f32's unit roundoff.
_U32 = 2.0**-24


def reference(spec, x, mask):
    """(y, the exponents' error bound per row): float64 softmax of the encoded inputs, [rows, dim]; a row
    with nothing but -inf is all zeros."""
    s = spec.scale_value * x
    if mask is not None:
        s = s + mask
    top = s.max(axis=-1, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(top), top, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    y = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    size = np.where(np.isfinite(s), np.abs(s), 0.0).max(axis=-1, keepdims=True)
    return y, size


def expected(spec, x, mask):
    """bound.Expected of y (as stored): each element within its derived error.

    An exponent reaches exp2 with an absolute error (in natural units) of at most 8 u |s|max of its row:
    the f32 rounding of the value (the input converted exactly), of scale log2(e) and log2(e), of the
    product, the fma or mask add, the max's scaling, and the subtraction, each at most u times a value no
    larger than 2 |s|max. An exponent's relative error eta is that plus 2u (exp2). y = e / sum e takes it
    twice (numerator and sum), plus the f32 sum of dim terms, the reciprocal (4u) and the product (u):
    |dy| <= (2 eta + gamma_dim + 5u) y."""
    y, size = reference(spec, x, mask)
    eta = 8 * _U32 * size + 2 * _U32
    return bound.within(y, (2 * eta + bound.gamma(spec.dim) + 5 * _U32) * y, spec.dtype)


def numeric_check(case, rng):
    spec = case.spec
    x, x64 = encode(3 * rng.standard_normal((spec.rows, spec.dim)), spec.dtype)
    store_type, poison = POISON[spec.dtype]
    y = np.full((spec.rows, spec.dim), poison, store_type)
    args = [x, y]
    mask = None
    if spec.mask:  # finite values and some -inf; the last row of two or more masked whole
        mask = rng.uniform(-4, 4, (spec.rows, spec.dim)).astype(np.float32)
        mask[rng.random((spec.rows, spec.dim)) < 0.25] = -np.inf
        if spec.rows > 1:
            mask[-1] = -np.inf
        args.append(mask)
    grid = plan(spec, case.arch).grid(spec.rows)
    return NumericCheck(args + [spec.rows], grid, {1: expected(spec, x64, mask)}, bound.decode_stored)


FAMILY = Family(NAME, cases(), build, numeric_check)
