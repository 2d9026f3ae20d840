"""conv_igemm_dgrad: the data gradient of a convolution (dx from dy and w) as
an implicit GEMM on the matrix cores.

    dx[n, i, c] = sum over k and taps of dy[n, o, k] w[k, tap, c],
                  where i = o*stride + tap*dilation - pad

Each group is its own GEMM (grid z), built from platform/tile's main loop
and epilogue, like conv_igemm_fwd:

    rows     m = input pixels (n, i...), N x input spatial
    columns  n = input channels of the group, C / groups
    reduce   k = filters of the group x filter taps, K / groups x taps

The reduction index is tap-major, filter fastest: r = tap x K/groups + k.
That order makes A (dy, the big operand, streamed once per column block)
the vector gather: in NHWC, when K/groups is a multiple of 8, the 8 r of a
16-byte unit are 8 consecutive filters of one dy pixel with one tap, so one
16-byte load with one validity. The other order (filter-major, r = k x taps
+ tap) would make B a plain row-major matrix (w[K, taps, C/g] is
[K x taps, C/g]) but A one load per element for any filter larger than
1x1: 8 x the loads and address arithmetic on the operand that is 2 x B's
size in each step (a 128 x 32 A tile against a 64 x 32 B one). So B (w, a
few KB, cache-resident) is the gathered one, element by element
(tile.Operands.b_gather): w[g K/g + k, tap, c] in NHWC, w[g K/g + k, c, tap]
in NCHW. Both orders were built and measured on resnet50_3x3_c64: tap-major
takes fewer instructions and VGPRs on gfx942 and gfx1201
(docs/figures/conv-isa.md).

Stride > 1 is masking in A's gather: input pixel i takes dy[o] through tap
t only where i + pad - t*dilation is a multiple of the stride whose
quotient o lies inside the output (the remainder and o's distance from its
clamp into the output, or'ed, are zero); every other (pixel, tap) reads zero.
The validity depends on (pixel, tap) alone, never on k, so it is one mask
per 16-byte unit and the vector gather survives. The cost is work: with
stride s in d dimensions only 1 / s^d of the reduction is non-zero, and the
matrix cores multiply the zeros. A stride-phase decomposition (one GEMM per
phase i mod s, each over only its own taps) skips them, but needs s^d
kernels or a phase grid axis with a different tap set per phase, each
phase a GEMM of its own M, k and edge blocks. Stride > 1 layers are few (7
of ResNet-50's 53 convolutions: the stem, three 3x3 and three 1x1
downsamples), so this family keeps one GEMM, correct by masking, and
leaves the phase split as the known speed-up for those layers (for a 1x1
stride-2 layer, 4 x fewer matrix ops).

NHWC and NCHW are both supported. NHWC dx is the GEMM's C (row-major,
ld = C, the group's columns at g x C/groups) through tile.epilogue (vector
stores in whole blocks); NCHW dx is stored element by element here, and
its dy gather is one load per element. A gradient has no bias or relu: a
spec with bias_relu is refused. The tile is conv_igemm_fwd's (igemm_tiles.json,
IgemmSpec): the GEMM has the same shape class, many pixel rows by few channel
columns. The kernel is

    conv_igemm_dgrad_<case id>(dy, w, dx)

run over grid(spec).
"""

import math

import numpy as np

from conv import common, gather_address, igemm_tiles, reference
from conv.cases import igemm_dgrad_cases
from conv.family_names import NAMES
from conv.igemm_tiles import IgemmSpecError
from family import bound
from family.family import Family, NumericCheck
from ir import types as T
from ir.builder import KernelBuilder
from tile.gather import Gather
from tile.gemm import GemmConfig, Operands, epilogue, mainloop

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]


def grid(spec):
    """Workgroups: channel blocks across x, pixel blocks across y, groups across z."""
    m, n, _ = spec.dgrad_gemm
    return (-(-n // spec.tile.block_n), -(-m // spec.tile.block_m), spec.conv.groups)


def _check(spec):
    if spec.conv.bias_relu:
        raise IgemmSpecError(
            "conv_igemm_dgrad: ConvSpec.bias_relu: expected False (a data gradient has no bias or activation), got True; conv_igemm_fwd takes bias_relu",
            "ConvSpec.bias_relu",
            True,
            [False],
        )


def _split(b, r, kpg):
    """(tap, filter in the group) of reduction index r: tap-major, filter fastest."""
    return b.div(r, kpg), b.rem(r, kpg)


def _dy_gather(spec):
    """A: the group's dy[n, o, k] for input pixel `row` and reduction r = (tap, k)
    (an index from the group's first channel); zero where no output pixel
    reaches this input pixel through the tap."""
    c = spec.conv
    kpg = c.k_per_group

    def address(b, row, r):
        n, *i = common.unflatten(b, row, (c.n, *c.spatial))
        tap, k = _split(b, r, kpg)
        t = common.unflatten(b, tap, c.filter)
        # Every miss is an integer that is non-zero where (pixel, tap) reaches no
        # output: one compare per element at the end, not three per dimension
        # (on wave64 each i1 is an SGPR pair; llvm22 spilled SGPRs with them).
        pos, miss = [], None
        for ii, ti, out, stride, pad, dil in zip(i, t, c.output, c.stride, c.pad, c.dilation):
            o = b.sub(b.add(ii, pad), b.mul(ti, dil))  # o * stride, where it is an output pixel
            between = None
            if stride > 1:
                between = b.rem(o, stride)  # non-zero: between two output pixels (or before the first)
                o = b.div(o, stride)
            off = b.sub(o, b.min(b.max(o, 0), out - 1))  # non-zero: outside the output
            part = off if between is None else b.or_(off, between)
            miss = part if miss is None else b.or_(miss, part)
            pos.append(o)
        valid = b.cmp("eq", miss, 0)
        return common.layout_index(b, c, n, pos, k, c.output_shape()), valid

    return Gather(address, runs=c.channels_last and gather_address.whole_units(kpg, c.dtype))


def _w_gather(spec):
    """B: the group's w[k, tap, col] (NHWC) or w[k, col, tap] (NCHW), one element at a time."""
    c = spec.conv
    kpg, cpg, taps = c.k_per_group, c.c_per_group, math.prod(c.filter)

    def address(b, col, r):
        tap, k = _split(b, r, kpg)
        if c.channels_last:
            return b.add(b.mul(b.add(b.mul(k, taps), tap), cpg), col), None
        return b.add(b.mul(b.add(b.mul(k, cpg), col), taps), tap), None

    return Gather(address, runs=False)


def _store_nchw(b, spec, acc, dx, group, row0, col0):
    """Channels-first dx[n, g C/g + col, pixel], element by element."""
    c = spec.conv
    m, cpg, _ = spec.dgrad_gemm
    pixels = math.prod(c.spatial)
    elem = common.ELEM[c.dtype]
    for row, col, value in acc.elements(b):
        gr, gc = b.add(row0, row), b.add(col0, col)
        with b.if_(b.and_(b.cmp("lt", gr, m), b.cmp("lt", gc, cpg))):
            channel = b.add(b.mul(group, cpg), gc)
            index = b.add(b.mul(b.add(b.mul(b.div(gr, pixels), c.c), channel), pixels), b.rem(gr, pixels))
            b.store(b.offset(dx, b.mul(index, elem.nbytes)), b.convert(value, elem))


def build(case):
    spec = case.spec
    c = spec.conv
    _check(spec)
    form = igemm_tiles.form(spec, case.arch)
    cfg = GemmConfig(spec.op, spec.tile)
    b = KernelBuilder(
        NAME + "_" + case.id,
        arch=case.arch,
        workgroup_size=(cfg.threads(form.wave), 1, 1),
        wave_size=form.wave,
    )
    dy, w, dx = b.arg("dy", T.GLOBAL), b.arg("w", T.GLOBAL), b.arg("dx", T.GLOBAL)
    elem = common.ELEM[c.dtype]
    m, n, k = spec.dgrad_gemm
    group = b.block_id(2)
    # The group's first dy channel and first filter (K is w's outermost dimension).
    # The gathers index from there: no group term in every element's address.
    channel_stride = 1 if c.channels_last else math.prod(c.output)
    dy_group = b.offset(dy, b.mul(b.mul(group, c.k_per_group * channel_stride), elem.nbytes))
    w_group = b.offset(w, b.mul(b.mul(group, c.k_per_group * n * math.prod(c.filter)), elem.nbytes))
    ops = Operands(
        dy_group,
        w_group,
        b.const(m, T.I32),
        b.const(n, T.I32),
        b.const(k, T.I32),
        0,
        0,
        a_gather=_dy_gather(spec),
        b_gather=_w_gather(spec),
    )
    row0, col0 = b.mul(b.block_id(1), spec.tile.block_m), b.mul(b.block_id(0), spec.tile.block_n)
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    if c.channels_last:
        dx_group = b.offset(dx, b.mul(b.mul(group, n), elem.nbytes))
        epilogue(
            b, acc.runs(b), dx_group, c.c, ops.m, ops.n, row0, col0, elem, inside=acc.inside, rows=spec.tile.block_m
        )
    else:
        _store_nchw(b, spec, acc, dx, group, row0, col0)
    return b.finish()


# -- numbers --------------------------------------------------------------------------


def numeric_check(case, rng):
    c = case.spec.conv
    dy, dy64 = common.encode(rng.standard_normal(c.output_shape()), c.dtype)
    w, w64 = common.encode(
        rng.standard_normal(c.weight_shape()) / math.sqrt(c.k_per_group * math.prod(c.filter)), c.dtype
    )
    store_type, poison = common.POISON[c.dtype]
    dx = np.full(c.input_shape(), poison, store_type)
    want = bound.expected(lambda dy_, w_: reference.dgrad(c, dy_, w_), (dy64, w64), case.spec.dgrad_gemm[2], c.dtype)
    return NumericCheck([dy, w, dx], grid(case.spec), {2: want}, lambda v: common.decode(v, c.dtype))


FAMILY = Family(NAME, igemm_dgrad_cases(), build, numeric_check)
