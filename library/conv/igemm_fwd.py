"""conv_igemm_fwd: forward convolution as an implicit GEMM on the matrix cores.

Each group is its own GEMM (grid z), built from platform/tile's main loop
and epilogue:

    rows     m = output pixels (n, o...), N x output spatial
    columns  n = output channels of the group, K / groups
    reduce   k = channels of the group x filter taps, C / groups x taps

B is the weights, each filter one contiguous row of the reduction
(B column-major, ld = k): [K, taps, C/g] channels-last, [K, C/g, taps]
channels-first; the reduction index follows that order (tap-major, channel
fastest, in NHWC). A is the im2col matrix, never written: its tile copy
(tile.gather) computes each element's input address from (pixel, channel,
tap), with a mask for the padding. In NHWC, when C/groups is a multiple of
8, the 8 k of a 16-byte unit are 8 consecutive channels of one input pixel:
one vector load, zeroed in the padding; otherwise (and in NCHW) one load
per element. With IgemmSpec.row_runs (small C: the stem) the reduction
runs by filter rows, each padded to the k step with zero weights, and a
filter row's X x C elements are one run of vector loads (row_runs.py).

Output NHWC is the GEMM's C (row-major, ld = K, the group's columns at
g x K/groups) and goes through tile.epilogue (vector stores in whole
blocks); NCHW output is stored element by element here. The epilogue
(ConvSpec: bias, residual, activation, scale; tile.gemm.finish) is applied
before the conversion to the input type. Sizes are compile-time constants
of the spec: the kernel is

    conv_igemm_fwd_<case id>(x, w, y, [bias], [residual])

run over IgemmSpec.grid().

Split-K (IgemmSpec.split_k = S > 1): grid z covers groups x S (z = split x
groups + group) and a workgroup reduces only its split's k slice
(IgemmSpec.k_slices: whole k steps), by offsetting B and the gather's k by
the slice's start. It writes f32 partial sums, never the output:

    conv_igemm_fwd_<case id>(x, w, ws)

ws holds S slices of E = output elements (slice s at element s x E), each in
the output's own layout, with no epilogue or conversion: the reduce kernel
(conv.split_k_reduce) adds them up, then applies those.
"""

import math

import numpy as np

from conv import common, gather_address, igemm_tiles, row_runs
from conv.cases import igemm_fwd_cases
from conv.family_names import NAMES
from family import bound
from family.family import Family, NumericCheck
from ir import types as T
from ir.builder import KernelBuilder
from tile.copy import UNCHECKED
from tile.gather import Gather
from tile.gemm import GemmConfig, Operands, epilogue, finish, mainloop, spec_epilogue

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]


def _gather(spec, group, k_begin=None):
    """The im2col matrix of `group` as a tile.gather.Gather over the input;
    with `k_begin` (split-K), its columns start at that k of the reduction."""
    c = spec.conv

    def address(b, row, k):
        n, o = gather_address.output_pixel(b, c, row)
        if k_begin is not None:
            k = b.add(k, k_begin)
        return gather_address.input_address(b, c, group, n, o, k)

    runs = c.channels_last and gather_address.whole_units(c.c_per_group, c.dtype)
    if not gather_address.stepped(c, spec.tile.block_k):
        return Gather(address, runs=runs)

    def stepped(b, row, k0, k):
        if k_begin is not None:
            k0 = b.add(k0, k_begin)
        return gather_address.stepped_offset(b, c, group, row, k0, k)

    return Gather(address, runs=runs, stepped=stepped, extent=math.prod(c.input_shape()) * common.ELEM[c.dtype].nbytes)


def _weights(spec, elem):
    """B, the group's filters (each a row of k weights, its `ld`), as a
    stepped tile.gather.Gather: its fast loop's loads through a buffer, the
    lane's offset fixed and the k step's uniform (no per-lane 64-bit address
    arithmetic in the loop). They never leave the weights: the buffer is
    unchecked."""
    k = spec.gemm[2]

    def address(b, row, kk):
        return b.add(b.mul(row, k), kk), None

    def stepped(b, row, k0, kk):
        return b.add(b.mul(b.add(b.mul(row, k), kk), elem.nbytes), b.mul(k0, elem.nbytes))

    return Gather(address, runs=True, stepped=stepped, extent=UNCHECKED)


def _store_nchw(b, spec, acc, y, group, row0, col0, elem, bias=None, residual=None, partial=False):
    """Channels-first output: y[n, g*K/g + col, pixel] as `elem`, element by element, through
    the spec's epilogue (tile.gemm.finish; `bias` and `residual` its arguments) unless `partial`
    (a split's f32 partial sums)."""
    c = spec.conv
    m, kpg, _ = spec.gemm
    pixels = math.prod(c.output)
    keywords = {} if partial else spec_epilogue(c)
    for row, col, value in acc.elements(b):
        gr, gc = b.add(row0, row), b.add(col0, col)
        with b.if_(b.and_(b.cmp("lt", gr, m), b.cmp("lt", gc, kpg))):
            channel = b.add(b.mul(group, kpg), gc)

            def index():
                return b.add(b.mul(b.add(b.mul(b.udiv(gr, pixels), c.k), channel), pixels), b.urem(gr, pixels))

            def add_bias(j):
                return b.load(b.offset(bias, b.mul(channel, 4)), T.F32)

            def add_residual(j):  # the output's layout: the element stored below (LLVM merges the two indices)
                return b.convert(b.load(b.offset(residual, b.mul(index(), elem.nbytes)), elem), T.F32)

            (value,) = finish(
                b,
                [value],
                bias=None if bias is None else add_bias,
                residual=None if residual is None else add_residual,
                **keywords,
            )
            b.store(b.offset(y, b.mul(index(), elem.nbytes)), b.convert(value, elem))


def build(case):
    spec = case.spec
    c = spec.conv
    form = igemm_tiles.form(spec, case.arch)
    cfg = GemmConfig(spec.op, spec.tile)
    b = KernelBuilder(
        NAME + "_" + case.id, arch=case.arch, workgroup_size=(cfg.threads(form.wave), 1, 1), wave_size=form.wave
    )
    x, w, y = b.arg("x", T.GLOBAL), b.arg("w", T.GLOBAL), b.arg("y" if spec.split_k == 1 else "ws", T.GLOBAL)
    bias = b.arg("bias", T.GLOBAL) if c.bias and spec.split_k == 1 else None
    residual = b.arg("residual", T.GLOBAL) if c.residual != "none" and spec.split_k == 1 else None
    elem = common.ELEM[c.dtype]
    m, n, k = spec.gemm
    if spec.split_k == 1:
        group, k_begin, k_len = b.block_id(2), None, None
        # This group's filters: K/g rows of k weights each.
        w_group = b.offset(w, b.mul(b.mul(group, n * k), elem.nbytes))
    else:
        split, group, k_begin, k_len = _split(b, spec)
        # This group's filters from the slice's first k on (B keeps ld = k).
        w_group = b.offset(w, b.mul(b.add(b.mul(group, n * k), k_begin), elem.nbytes))
    ops = Operands(
        x,
        w_group,
        b.const(m, T.I32),
        b.const(n, T.I32),
        b.const(k, T.I32) if k_len is None else k_len,
        0,
        k,
        b_layout="col",
        a_gather=row_runs.im2col(spec, group) if spec.row_runs else _gather(spec, group, k_begin),
        b_gather=row_runs.weights(spec) if spec.row_runs else _weights(spec, elem),
    )
    row0, col0 = b.mul(b.block_id(1), spec.tile.block_m), b.mul(b.block_id(0), spec.tile.block_n)
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    if spec.split_k > 1:
        _store_partial(b, spec, acc, y, split, group, ops, row0, col0)
        return b.finish()
    if c.channels_last:
        y_group = b.offset(y, b.mul(b.mul(group, n), elem.nbytes))
        bias_group = None if bias is None else b.offset(bias, b.mul(b.mul(group, n), 4))
        residual_group = None if residual is None else b.offset(residual, b.mul(b.mul(group, n), elem.nbytes))
        epilogue(
            b,
            acc.runs(b),
            y_group,
            c.k,
            ops.m,
            ops.n,
            row0,
            col0,
            elem,
            bias=bias_group,
            residual=residual_group,
            inside=acc.inside,
            rows=spec.tile.block_m,
            **spec_epilogue(c),
        )
    else:
        _store_nchw(b, spec, acc, y, group, row0, col0, elem, bias, residual)
    return b.finish()


def _split(b, spec):
    """(split, group, k_begin, k_len) of this workgroup, as IR values: grid z
    is split x groups + group; the split's slice is IgemmSpec.k_slices's."""
    k, steps, parts = spec.gemm[2], spec.k_steps, spec.split_k
    z = b.block_id(2)
    split, group = b.udiv(z, spec.conv.groups), b.urem(z, spec.conv.groups)
    k_begin = b.mul(b.udiv(b.mul(split, steps), parts), spec.tile.block_k)
    k_end = b.min(b.mul(b.udiv(b.mul(b.add(split, 1), steps), parts), spec.tile.block_k), k)
    return split, group, k_begin, b.sub(k_end, k_begin)


def _store_partial(b, spec, acc, ws, split, group, ops, row0, col0):
    """This split's f32 partial sums into workspace slice `split` (element
    offset split x E), in the output's layout, unconverted, no epilogue."""
    c = spec.conv
    n = spec.gemm[1]
    elements = math.prod(c.output_shape())
    if c.channels_last:
        first = b.add(b.mul(split, elements), b.mul(group, n))
        epilogue(
            b,
            acc.runs(b),
            b.offset(ws, b.mul(first, 4)),
            c.k,
            ops.m,
            ops.n,
            row0,
            col0,
            T.F32,
            inside=acc.inside,
            rows=spec.tile.block_m,
        )
    else:
        _store_nchw(
            b, spec, acc, b.offset(ws, b.mul(b.mul(split, elements), 4)), group, row0, col0, T.F32, partial=True
        )


# -- numbers --------------------------------------------------------------------------


def slice_weights(spec, w64, begin, end):
    """The weights with every reduction index outside [begin, end) zeroed.
    Each filter's weights, flattened in their layout ([K, taps, C/g] or
    [K, C/g, taps]), are its GEMM column in reduction order (module
    docstring), so the forward convolution of these weights is the partial
    sum of a split that owns [begin, end)."""
    rows = w64.reshape(spec.conv.k, -1).copy()
    rows[:, :begin] = 0
    rows[:, end:] = 0
    return rows.reshape(w64.shape)


def partial_sums(spec, x64, w64):
    """The workspace a split kernel writes: S x output, slice s numpy's
    forward convolution over the reduction indices [begin, end) it owns
    (the convolution of slice_weights). Computed as common.reference does,
    tap by tap, each tap's product over the channels a slice owns going to
    that slice: for one tap those channels are one run (the reduction is
    tap-major, channel fastest, channels-last; channel-major, tap fastest,
    channels-first), so the S slices cost one convolution, not S."""
    c = spec.conv
    x, w = (np.moveaxis(x64, -1, 1), np.moveaxis(w64, -1, 1)) if c.channels_last else (x64, w64)
    x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in c.pad])
    cpg, kpg, taps = c.c_per_group, c.k_per_group, math.prod(c.filter)
    out = np.zeros((spec.split_k, c.n, c.k, *c.output))
    for t, tap in enumerate(np.ndindex(*c.filter)):
        window = tuple(
            slice(f * d, f * d + s * (o - 1) + 1, s) for f, d, s, o in zip(tap, c.dilation, c.stride, c.output)
        )
        patch = x[(slice(None), slice(None)) + window]  # n, c, *out
        for split, (begin, end) in enumerate(spec.k_slices()):
            if c.channels_last:
                lo, hi = max(begin - t * cpg, 0), min(end - t * cpg, cpg)
            else:
                lo, hi = max(-(-(begin - t) // taps), 0), min(-(-(end - t) // taps), cpg)
            for g in range(c.groups) if lo < hi else ():
                xs = patch[:, g * cpg + lo : g * cpg + hi]
                ws = w[(slice(g * kpg, (g + 1) * kpg), slice(lo, hi)) + tap]  # kpg, channels
                out[split, :, g * kpg : (g + 1) * kpg] += np.einsum("nc...,kc->nk...", xs, ws, optimize=True)
    return np.moveaxis(out, 2, -1) if c.channels_last else out


def numeric_check(case, rng):
    c = case.spec.conv
    x, x64 = common.encode(rng.standard_normal(c.input_shape()), c.dtype)
    w, w64 = common.encode(
        rng.standard_normal(c.weight_shape()) / math.sqrt(c.c_per_group * math.prod(c.filter)), c.dtype
    )
    if case.spec.split_k > 1:
        # f32 partial sums, NaN until written; a slice has at most the whole reduction's terms.
        ws = np.full((case.spec.split_k, *c.output_shape()), np.nan, np.float32)
        length = c.c_per_group * math.prod(c.filter)
        want = bound.expected(lambda x_, w_: partial_sums(case.spec, x_, w_), (x64, w64), length, "f32")
        # Grid z runs the slices (and groups): a sampled tile runs every slice.
        return NumericCheck([x, w, ws], case.spec.grid(), {2: want}, lambda v: v.astype(np.float64), whole=(2,))
    store_type, poison = common.POISON[c.dtype]
    y = np.full(c.output_shape(), poison, store_type)
    extra, bias, residual64 = common.epilogue_args(c, rng)
    want = common.expected(c, x64, w64, bias, residual64)
    return NumericCheck([x, w, y, *extra], case.spec.grid(), {2: want}, lambda v: common.decode(v, c.dtype))


FAMILY = Family(NAME, igemm_fwd_cases(), build, numeric_check)
