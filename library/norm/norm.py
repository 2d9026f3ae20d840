"""norm: layernorm and rmsnorm over a row's last dimension, one workgroup per row.

A workgroup of `threads` lanes takes one row (grid: one workgroup per row).
Lane t holds the row's vectors t, t + threads, ... of `vec` elements (16
bytes where the dim allows, NormSpec.vec), so consecutive lanes read
consecutive 16 bytes; a vector past the row's end is not read, and the one
the row's end cuts (where dim is no multiple of threads * vec) is read and
written under a guard. Everything is computed in f32:

  - v = x, or with a residual the f32 sum x + residual rounded to the
    input type (what an unfused add would store: residual_out stores it).
  - layernorm: the mean, then the sum of squared deviations from it: two
    passes over the registers, never E[x^2] - E[x]^2. rmsnorm: the mean
    square. Each is a lane's balanced sum, then tile.rows.workgroup across
    lanes and waves.
  - y = (v - mean) * rsqrt(var + eps) * weight + bias (rmsnorm: v * rsqrt(ms
    + eps) * weight), converted to the input type and stored.

A row of one chunk (threads * per_lane elements: every dim up to tiles.json's
line) is read once and stays in registers from load to store. A longer row is
read chunk by chunk twice: first for the statistics (layernorm: each chunk's
mean and squared deviations, combined with the running ones by Chan's
formula, whose weights are compile-time constants), then for the output.

    norm_<case id>(x, [residual,] [weight,] [bias,] y, [residual_out])
"""

import dataclasses

import numpy as np

from arch import arch as archs
from family import bound
from family.family import Family, NumericCheck
from family.fields import f32
from interp.numerics import round_bf16
from ir import types as T
from ir.builder import KernelBuilder
from norm.cases import cases
from norm.family_names import NAMES
from norm.spec import ELEM
from tile import rows

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]


@dataclasses.dataclass(frozen=True)
class _Vector:
    at: object  # byte offset of this lane's vector from the row's start (i32 value)
    inside: object  # None (every lane's vector is in the row) or i1: this lane's is


class _Kernel:
    """The builder state of one norm kernel: its tensors and this lane's place in the row."""

    def __init__(self, case):
        spec = self.spec = case.spec
        self.elem, self.vec = ELEM[spec.dtype], spec.vec
        self.eb = self.elem.nbytes
        wave = archs.get(case.arch).wave_sizes[0]
        self.waves = spec.threads // wave
        b = self.b = KernelBuilder(
            NAME + "_" + case.id, arch=case.arch, workgroup_size=(spec.threads, 1, 1), wave_size=wave
        )
        x = b.arg("x", T.GLOBAL)
        residual = b.arg("residual", T.GLOBAL) if spec.residual else None
        self.weight = b.arg("weight", T.GLOBAL) if spec.affine else None
        self.bias = b.arg("bias", T.GLOBAL) if spec.affine and spec.kind == "layernorm" else None
        y = b.arg("y", T.GLOBAL)
        residual_out = b.arg("residual_out", T.GLOBAL) if spec.residual_out else None
        row = b.mul(b.block_id(0), spec.dim * self.eb)
        self.x = b.offset(x, row)
        self.residual = None if residual is None else b.offset(residual, row)
        self.y = b.offset(y, row)
        self.residual_out = None if residual_out is None else b.offset(residual_out, row)
        self.tid = b.thread_id(0)
        self.lane_at = b.mul(self.tid, self.vec * self.eb)
        self.slots = b.lds_alloc(rows.slots_bytes(self.waves)) if self.waves > 1 else None
        self.stored = T.vector(self.elem, self.vec) if self.vec > 1 else self.elem
        self.values = T.vector(T.F32, self.vec) if self.vec > 1 else T.F32

    def vectors(self, c):
        """This lane's vectors in chunk c that any lane's holds part of the row."""
        b, spec = self.b, self.spec
        out = []
        for k in range(spec.per_lane // self.vec):
            first = c * spec.chunk + k * spec.threads * self.vec  # lane 0's first element
            if first >= spec.dim:
                break
            at = b.add(self.lane_at, first * self.eb)
            inside = None
            if first + spec.threads * self.vec > spec.dim:
                inside = b.cmp("lt", self.tid, (spec.dim - first) // self.vec)
            out.append(_Vector(at, inside))
        return out

    def read(self, p, vector):
        """This lane's vector of the tensor at p as f32 values (zero where it lies past the row)."""
        b = self.b
        if vector.inside is None:
            return b.convert(b.load(b.offset(p, vector.at), self.stored), self.values)
        br = b.if_(vector.inside, [self.stored])
        with br.then_():
            b.yield_(b.load(b.offset(p, vector.at), self.stored))
        with br.else_():
            zero = b.const(0.0, self.elem)
            b.yield_(b.build([zero] * self.vec) if self.vec > 1 else zero)
        return b.convert(br.results[0], self.values)

    def write(self, p, vector, stored):
        """Store this lane's vector `stored` (the input type) to the tensor at p, where it lies in the row."""
        b = self.b
        if vector.inside is None:
            b.store(b.offset(p, vector.at), stored)
            return
        with b.if_(vector.inside):
            b.store(b.offset(p, vector.at), stored)

    def load_chunk(self, c, first_pass):
        """(vectors, f32 values) of this lane's part of chunk c: x, or x + residual rounded to the input
        type, which the first pass over the chunk also stores to residual_out."""
        b = self.b
        vectors = self.vectors(c)
        values = []
        for vector in vectors:
            v = self.read(self.x, vector)
            if self.residual is not None:
                total = b.convert(b.add(v, self.read(self.residual, vector)), self.stored)
                if first_pass and self.residual_out is not None:
                    self.write(self.residual_out, vector, total)
                v = b.convert(total, self.values)
            values.append(v)
        return vectors, values

    def elems(self, v):
        """The f32 scalars of a vector of values."""
        return [self.b.extract(v, j) for j in range(self.vec)] if self.vec > 1 else [v]

    def splat(self, x):
        """The f32 scalar x as a vector of values."""
        return self.b.build([x] * self.vec) if self.vec > 1 else x

    def total(self, lane_sum):
        """The sum of every lane's `lane_sum` over the workgroup."""
        return rows.workgroup(self.b, lane_sum, self.b.add, self.slots, self.waves)


def _tree(b, values):
    """The sum of `values` as a balanced tree."""
    while len(values) > 1:
        values = [b.add(x, y) for x, y in zip(values[::2], values[1::2])] + values[len(values) // 2 * 2 :]
    return values[0]


def _lane_sum(kern, vectors, values, mean=None):
    """This lane's sum over its elements of the row: of v (values past the row are zero), or, given
    the mean, of (v - mean)^2 (the terms past the row set to zero)."""
    b = kern.b
    terms = []
    for vector, v in zip(vectors, values):
        if mean is None:
            terms += kern.elems(v)
            continue
        for e in kern.elems(v):
            d = b.sub(e, mean)
            square = b.mul(d, d)
            terms.append(square if vector.inside is None else b.select(vector.inside, square, 0.0))
    return _tree(b, terms)


def _squares(kern, values):
    """This lane's sum of v^2 over its elements (values past the row are zero)."""
    b = kern.b
    return _tree(b, [b.mul(e, e) for v in values for e in kern.elems(v)])


def _layernorm_stats(kern, held):
    """(mean, rsqrt(var + eps)) of the row; appends each chunk's (vectors, values) to `held`."""
    b, spec = kern.b, kern.spec
    mean = m2 = None
    seen = 0
    for c in range(spec.chunks):
        vectors, values = kern.load_chunk(c, True)
        held.append((vectors, values))
        n = min(spec.chunk, spec.dim - c * spec.chunk)
        chunk_mean = b.mul(kern.total(_lane_sum(kern, vectors, values)), f32(1 / n))
        chunk_m2 = kern.total(_lane_sum(kern, vectors, values, chunk_mean))
        if mean is None:
            mean, m2 = chunk_mean, chunk_m2
        else:  # Chan, Golub and LeVeque's pairwise update of (count, mean, squared deviations)
            delta = b.sub(chunk_mean, mean)
            mean = b.fma(delta, b.const(f32(n / (seen + n)), T.F32), mean)
            m2 = b.add(b.add(m2, chunk_m2), b.mul(b.mul(delta, delta), f32(seen * n / (seen + n))))
        seen += n
    var = b.mul(m2, f32(1 / spec.dim))
    return mean, b.rsqrt(b.add(var, spec.eps_value))


def _rms_stats(kern, held):
    """rsqrt(mean(v^2) + eps) of the row; appends each chunk's (vectors, values) to `held`."""
    b, spec = kern.b, kern.spec
    part = None
    for c in range(spec.chunks):
        vectors, values = kern.load_chunk(c, True)
        held.append((vectors, values))
        squares = _squares(kern, values)
        part = squares if part is None else b.add(part, squares)
    ms = b.mul(kern.total(part), f32(1 / spec.dim))
    return b.rsqrt(b.add(ms, spec.eps_value))


def _store_chunk(kern, vectors, values, centre, scale):
    """y of this lane's part of a chunk: (v - centre) * scale (v * scale without a centre), times the
    weight and plus the bias where the spec has them."""
    b = kern.b
    for vector, v in zip(vectors, values):
        y = b.mul(v if centre is None else b.sub(v, centre), scale)
        if kern.weight is not None:
            w = kern.read(kern.weight, vector)
            y = b.mul(y, w) if kern.bias is None else b.fma(y, w, kern.read(kern.bias, vector))
        kern.write(kern.y, vector, b.convert(y, kern.stored))


def build(case):
    kern = _Kernel(case)
    spec = kern.spec
    held = []
    if spec.kind == "layernorm":
        mean, rstd = _layernorm_stats(kern, held)
        centre = kern.splat(mean)
    else:
        rstd, centre = _rms_stats(kern, held), None
    scale = kern.splat(rstd)
    for c in range(spec.chunks):
        vectors, values = held[c] if spec.chunks == 1 else kern.load_chunk(c, False)
        _store_chunk(kern, vectors, values, centre, scale)
    return kern.b.finish()


# -- numbers --------------------------------------------------------------------------

U32 = 2.0**-24  # f32's unit roundoff
POISON = {"f16": (np.float16, np.nan), "bf16": (np.uint16, 0x7FC0), "f32": (np.float32, np.nan)}


def encode(x, dtype):
    """float data -> what the kernel reads (f16, f32, bf16 bits), and its exact values."""
    if dtype == "bf16":
        r = round_bf16(x.astype(np.float32))
        return (r.view(np.uint32) >> 16).astype(np.uint16), r.astype(np.float64)
    h = x.astype(np.float16 if dtype == "f16" else np.float32)
    return h, h.astype(np.float64)


def rounded_sum(x, r, dtype):
    """x + residual as the kernel forms it: the f32 sum of the exact inputs (one IEEE rounding), rounded to
    the input type (float64 values)."""
    total = x.astype(np.float32) + r.astype(np.float32)
    if dtype == "bf16":
        return round_bf16(total).astype(np.float64)
    return total.astype(np.float16 if dtype == "f16" else np.float32).astype(np.float64)


def expected(spec, v, w, bias):
    """bound.Expected of y for the row values v (float64 [rows, dim], as the kernel holds them).

    The f32 statistics: a sum of dim terms is within gamma_dim of the sum of their magnitudes (bound.py),
    a product or the reciprocal-of-dim scaling adds a rounding, so the mean is within
    dmu = (gamma_dim + 4u) mean|v|. The squared deviations from a mean that far off sum to var + dmu^2
    (the deviations sum to zero), each rounded twice, and the chunks' combination adds a few roundings:
    var within (gamma_dim + 16u) var + dmu^2. rsqrt (v_rsq_f32, 1 ulp) of var + eps takes half that
    relative error plus 3u. y = (v - mean) rstd w + b then takes the deviation's error dmu + u |v - mean|
    times rstd |w|, the relative error of rstd times |(v - mean) rstd w|, and two roundings of its own.
    rmsnorm has no mean: its mean square is within (gamma_dim + 4u) of it."""
    w = np.ones(spec.dim) if w is None else w
    b = np.zeros(spec.dim) if bias is None else bias
    eps = spec.eps_value
    g = bound.gamma(spec.dim)
    if spec.kind == "layernorm":
        mean = v.mean(axis=-1, keepdims=True)
        d = v - mean
        var = (d * d).mean(axis=-1, keepdims=True)
        dmu = (g + 4 * U32) * np.abs(v).mean(axis=-1, keepdims=True)
        var_err = (g + 16 * U32) * var + dmu * dmu
    else:
        d = v
        var = (v * v).mean(axis=-1, keepdims=True)
        dmu = np.zeros_like(var)
        var_err = (g + 4 * U32) * var
    rstd = 1 / np.sqrt(var + eps)
    rstd_rel = var_err / (var + eps) / 2 + 3 * U32
    n = d * rstd
    y = n * w + b
    err = np.abs(w) * rstd * (dmu + U32 * np.abs(d)) + (rstd_rel + 2 * U32) * np.abs(n * w) + U32 * np.abs(y)
    return bound.within(y, err, spec.dtype)


def numeric_check(case, rng):
    spec = case.spec
    shape = (spec.rows, spec.dim)
    x, x64 = encode(16 + rng.standard_normal(shape), spec.dtype)  # off zero: the variance must not cancel
    args, v = [x], x64
    if spec.residual:
        r, r64 = encode(rng.standard_normal(shape), spec.dtype)
        args.append(r)
        v = rounded_sum(x64, r64, spec.dtype)
    w64 = b64 = None
    if spec.affine:
        w, w64 = encode(1 + 0.5 * rng.standard_normal(spec.dim), spec.dtype)
        args.append(w)
        if spec.kind == "layernorm":
            bias, b64 = encode(rng.standard_normal(spec.dim), spec.dtype)
            args.append(bias)
    store_type, poison = POISON[spec.dtype]
    outputs = {len(args): expected(spec, v, w64, b64)}
    args.append(np.full(shape, poison, store_type))
    if spec.residual_out:
        outputs[len(args)] = bound.within(v, np.zeros(shape), spec.dtype)
        args.append(np.full(shape, poison, store_type))
    return NumericCheck(args, (spec.rows, 1, 1), outputs, bound.decode_stored)


FAMILY = Family(NAME, cases(), build, numeric_check)
