"""pool: max and average pooling, 2-D and 3-D, channels last or first (spec.py states the problem).

One lane per output element group, THREADS lanes a workgroup, a 1-D grid
(PoolSpec.vec, groups, lanes and grid):

  - nhwc: a lane computes vec = 16 / element bytes consecutive channels of
    one output position (8 of f16 or bf16, 4 of f32), so every load and
    store is 16 bytes; with c not a multiple of vec the last group of each
    position is the tail, c % vec channels loaded and stored one by one.
    The tail lanes take a branch of their own: the other lanes never test
    a channel bound.
  - nchw: a lane computes one output element (channels are not
    contiguous), with scalar loads.

The window loops over the input positions it covers, clipped to the input
by per-dimension bounds computed once (max(start, 0), min(start + window,
size)), so padding is never read. The last dimension, when at most UNROLL
long, is unrolled instead, its loads in flight together: each position is
clamped into the input (only those some window can push out), which a max
takes as it is (a clamped position repeats one of the window, so padding
still counts as -inf, never 0) and an average replaces by 0. Each input
element is converted to f32 and combined (max, or added to an f32 sum); an
average multiplies by the reciprocal of its count (the whole window with
count_pad, a compile-time constant; otherwise the clipped window's size,
as rsqrt(count)^2: v_rsq_f32 and a multiply where an IEEE division is a
dozen instructions).

    pool_<case id>(x, y)
"""

import math

import numpy as np

from family import bound
from family.family import Family, NumericCheck
from interp.numerics import round_bf16
from ir import types as T
from ir.builder import KernelBuilder
from pool.cases import cases
from pool.family_names import NAMES
from pool.spec import ELEM, THREADS, UNROLL

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]
NEG_INF = float("-inf")


def unrolled(spec, dim):
    """Whether the window's dimension `dim` is unrolled: the last one, when it is at most UNROLL long, so
    that a row's loads are in flight together (a rolled loop waits for each); a longer one (a global
    pool's) stays a loop."""
    return dim == spec.dims - 1 and spec.window[dim] <= UNROLL


class _Kernel:
    """The builder state of one pooling kernel."""

    def __init__(self, case):
        spec = self.spec = case.spec
        self.elem = ELEM[spec.dtype]
        self.eb = self.elem.nbytes
        b = self.b = KernelBuilder(NAME + "_" + case.id, arch=case.arch, workgroup_size=(THREADS, 1, 1))
        self.x, self.y = b.arg("x", T.GLOBAL), b.arg("y", T.GLOBAL)

    def origin(self, gid):
        """(image, channel, output position per dim) of lane `gid`: the channel of its first element
        in nchw, its group in nhwc."""
        b, spec = self.b, self.spec
        rest = gid
        channel = None
        if spec.channels_last:
            channel = b.urem(rest, spec.groups)
            rest = b.udiv(rest, spec.groups)
        out = []
        for size in reversed(spec.output):
            out.append(b.urem(rest, size))
            rest = b.udiv(rest, size)
        if not spec.channels_last:
            channel = b.urem(rest, spec.c)
            rest = b.udiv(rest, spec.c)
        return rest, channel, out[::-1]

    def bounds(self, out):
        """(start, lo, hi) per dimension: where the window at output position `out` starts, and the input
        positions [lo, hi) it covers; lo and hi None for an unrolled dimension that needs no count."""
        b, spec = self.b, self.spec
        counted = spec.kind == "avg" and not spec.count_pad
        starts, lo, hi = [], [], []
        for dim, (o, size, k, s, p) in enumerate(zip(out, spec.spatial, spec.window, spec.stride, spec.pad)):
            start = b.sub(b.mul(o, s), p)
            starts.append(start)
            if unrolled(spec, dim) and not counted:
                lo.append(None)
                hi.append(None)
                continue
            lo.append(b.max(start, 0))
            hi.append(b.min(b.add(start, k), size))
        return starts, lo, hi

    def window(self, bounds, base, stride, load, acc):
        """`acc` (the combine's identity) combined with `load(element offset)` over the window: nested
        loops over the input positions [lo, hi) of each dimension, the last one unrolled (`row`); `base`
        the offset of the image (and channel) at position 0, `stride` elements from one position of the
        last dimension to the next."""
        b, spec = self.b, self.spec
        starts, lo, hi = bounds
        combine = b.max if spec.kind == "max" else b.add

        def nest(dim, at, values):
            if unrolled(spec, dim):
                return row(dim, at, values)
            if dim == spec.dims:
                return [combine(a, v) for a, v in zip(values, load(b.add(base, b.mul(at, stride))))]
            with b.for_range(lo[dim], hi[dim], 1, values) as loop:
                inner = loop.iv if dim == 0 else b.add(b.mul(at, spec.spatial[dim]), loop.iv)
                b.yield_(*nest(dim + 1, inner, loop.iters))
            return loop.results

        def row(dim, at, values):
            """The last dimension's window positions, each clamped into the input: a max takes a clamped
            position as it is (it repeats a position of the window), an average takes the identity there.
            Only the positions some window can push out of the input are clamped."""
            size, pad = spec.spatial[dim], spec.pad[dim]
            reach = size + pad - (spec.output[dim] - 1) * spec.stride[dim]  # k >= reach: past the end for some lane
            average = spec.kind == "avg"
            for k in range(spec.window[dim]):
                x, valid = b.add(starts[dim], k), []
                if k < pad:
                    valid += [b.cmp("ge", x, 0)] if average else []
                    x = b.max(x, 0)
                if k >= reach:
                    valid += [b.cmp("lt", x, size)] if average else []
                    x = b.min(x, size - 1)
                loaded = load(b.add(base, b.mul(b.add(b.mul(at, size), x), stride)))
                if valid:
                    inside = valid[0] if len(valid) == 1 else b.and_(*valid)
                    loaded = [b.select(inside, v, e) for v, e in zip(loaded, acc)]
                values = [combine(a, v) for a, v in zip(values, loaded)]
            return values

        return nest(0, None, acc)

    def finish(self, acc, lo, hi):
        """The window's result in f32: the max as it is, the sum times 1 / count."""
        b, spec = self.b, self.spec
        if spec.kind == "max":
            return acc
        if spec.count_pad:
            inv = b.const(1 / math.prod(spec.window), T.F32)
        else:
            count = b.sub(hi[0], lo[0])
            for low, high in zip(lo[1:], hi[1:]):
                count = b.mul(count, b.sub(high, low))
            root = b.rsqrt(b.convert(count, T.F32))
            inv = b.mul(root, root)
        return [b.mul(a, b.build([inv] * T.lanes(a.type)) if T.lanes(a.type) > 1 else inv) for a in acc]

    def run(self, width, bounds, base, stride, at_out, vector):
        """One lane's `width` channels: the window reduced and stored at element offset `at_out`; as one
        vector of `width` when `vector`, else `width` scalars."""
        b, spec = self.b, self.spec
        start = NEG_INF if spec.kind == "max" else 0.0
        if vector:
            vtype, f32 = T.vector(self.elem, width), T.vector(T.F32, width)
            acc = [b.build([b.const(start, T.F32)] * width)]

            def load(at):
                return [b.convert(b.load(b.offset(self.x, b.mul(at, self.eb)), vtype), f32)]
        else:
            acc = [b.const(start, T.F32)] * width

            def load(at):
                return [
                    b.convert(b.load(b.offset(self.x, b.mul(b.add(at, i), self.eb)), self.elem), T.F32)
                    for i in range(width)
                ]

        result = self.finish(self.window(bounds, base, stride, load, acc), bounds[1], bounds[2])
        if vector:
            b.store(b.offset(self.y, b.mul(at_out, self.eb)), b.convert(result[0], T.vector(self.elem, width)))
        else:
            for i, r in enumerate(result):
                b.store(b.offset(self.y, b.mul(b.add(at_out, i), self.eb)), b.convert(r, self.elem))


def build(case):
    kern = _Kernel(case)
    spec, b = kern.spec, kern.b
    gid = b.add(b.mul(b.block_id(0), THREADS), b.thread_id(0))
    positions = math.prod(spec.spatial)
    with b.if_(b.cmp("lt", gid, spec.lanes)):
        image, channel, out = kern.origin(gid)
        bounds = kern.bounds(out)
        if spec.channels_last:
            width, full, tail = spec.vec, spec.c // spec.vec, spec.c % spec.vec
            c0 = b.mul(channel, width)
            base = b.add(b.mul(image, positions * spec.c), c0)
            at_out = b.add(b.mul(b.udiv(gid, spec.groups), spec.c), c0)
            if not tail:
                kern.run(width, bounds, base, spec.c, at_out, vector=True)
            elif not full:
                kern.run(tail, bounds, base, spec.c, at_out, vector=False)
            else:
                br = b.if_(b.cmp("lt", channel, full))
                with br.then_():
                    kern.run(width, bounds, base, spec.c, at_out, vector=True)
                with br.else_():
                    kern.run(tail, bounds, base, spec.c, at_out, vector=False)
        else:
            base = b.mul(b.add(b.mul(image, spec.c), channel), positions)
            kern.run(1, bounds, base, 1, gid, vector=False)
    return b.finish()


# -- numbers --------------------------------------------------------------------------


def encode(x, dtype):
    """float data -> what the kernel reads (f16, f32, bf16 bits), and its exact values."""
    if dtype == "f16":
        h = x.astype(np.float16)
        return h, h.astype(np.float64)
    r = x.astype(np.float32) if dtype == "f32" else round_bf16(x.astype(np.float32))
    if dtype == "f32":
        return r, r.astype(np.float64)
    return (r.view(np.uint32) >> 16).astype(np.uint16), r.astype(np.float64)


POISON = {"f16": (np.float16, np.nan), "bf16": (np.uint16, 0x7FC0), "f32": (np.float32, np.nan)}
_U32 = 2.0**-24
# Relative error of 1 / count as rsqrt(count)^2 (v_rsq_f32 within 1 ulp, squared, and the multiply), and of
# the constant 1 / window rounded to f32 and the multiply.
_RECIPROCAL = 4 * _U32


def reference(spec, x):
    """(result, terms per element, the sum of |terms| / count): float64 pooling of the encoded input
    `x`, in the spec's layout. Padding is skipped (never a term), and a count_pad average divides by
    the whole window."""
    cl = x if spec.channels_last else np.moveaxis(x, 1, -1)  # [n, *spatial, c]
    out = np.zeros((spec.n, *spec.output, spec.c))
    mag = np.zeros_like(out)
    terms = 1
    for index in np.ndindex(*spec.output):
        sl = []
        for o, size, k, s, p in zip(index, spec.spatial, spec.window, spec.stride, spec.pad):
            start = o * s - p
            sl.append(slice(max(start, 0), min(start + k, size)))
        win = cl[(slice(None), *sl, slice(None))].reshape(spec.n, -1, spec.c)
        count = math.prod(spec.window) if spec.count_pad else win.shape[1]
        terms = max(terms, win.shape[1])
        if spec.kind == "max":
            out[(slice(None), *index, slice(None))] = win.max(axis=1)
        else:
            out[(slice(None), *index, slice(None))] = win.sum(axis=1) / count
            mag[(slice(None), *index, slice(None))] = np.abs(win).sum(axis=1) / count
    if not spec.channels_last:
        out, mag = np.moveaxis(out, -1, 1), np.moveaxis(mag, -1, 1)
    return out, terms, mag


def expected(spec, x):
    """bound.Expected of the output: a max is exact before its (exact) rounding back; an average is an
    f32 sum of at most `terms` terms, times a reciprocal: (gamma_terms + _RECIPROCAL) sum |x| / count."""
    out, terms, mag = reference(spec, x)
    return bound.within(out, (bound.gamma(terms) + _RECIPROCAL) * mag, spec.dtype)


def numeric_check(case, rng):
    spec = case.spec
    data = rng.standard_normal(spec.input_shape())
    if spec.kind == "max":
        # Every input negative: a max that took padding as 0 fails at every window that covers some.
        data = -np.abs(data) - 0.25
    x, x64 = encode(data, spec.dtype)
    store_type, poison = POISON[spec.dtype]
    y = np.full(spec.output_shape(), poison, store_type)
    return NumericCheck([x, y], spec.grid(), {1: expected(spec, x64)}, bound.decode_stored)


FAMILY = Family(NAME, cases(), build, numeric_check)
