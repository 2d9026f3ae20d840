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
few KB, cache-resident) is the gathered one (tile.Operands.b_gather):
w[g K/g + k, tap, c] in NHWC, w[g K/g + k, c, tap] in NCHW. In NHWC with
C/groups in whole 16-byte units, 8 consecutive columns (channels) of one (filter, tap) are one vector load,
transposed on the way to LDS (the gather runs along B's rows); otherwise
one load per element. A 1x1 filter's w is B itself, [K/g, C/g] row-major
(ld = C/g) in either layout: no gather, the tile's plain copy, whose B
gfx950 reads straight from LDS with its transposing fragment reads
(tile.gemm's transpose_b). It costs registers, and on most 1x1 layers a
wave of occupancy, for a leaner loop (docs/figures/conv-isa.md has the
trade). Both orders were built and measured on resnet50_3x3_c64:
tap-major takes fewer instructions and VGPRs on gfx942 and gfx1201
(docs/figures/conv-isa.md).

Where every k step lies inside one tap (K/groups a multiple of the k
step) the fast loop's gathers are stepped (tile.gather's Gather.stepped),
as conv_igemm_fwd's: a lane's offset is fixed and a k step adds a
wave-uniform one, through a buffer. For A (_dy_stepped) an input pixel
and tap that reach no output pixel (the padding, and with stride > 1 the
pixels between outputs) get the offset's PADDING_BIT from the lane's mask
of such taps, so the buffer's range check reads zeros: no division,
compare or select per lane in the loop.

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
downsamples), so a filter of more than one tap keeps one GEMM, correct by
masking. A 1x1 filter without padding (NHWC, C/groups in whole units:
IgemmSpec.dgrad_one_phase) has one phase with a tap: input pixel o x
stride takes dy[o], every other pixel is zero. Its GEMM is the stride-1
problem over dy's pixels (_phase_problem: stride^dims fewer rows, no
masks), and its store (_store_phase) writes each row's pixel and zeros
over the rest of the row's stride cell.

NHWC and NCHW are both supported. NHWC dx is the GEMM's C (row-major,
ld = C, the group's columns at g x C/groups) through tile.epilogue (vector
stores in whole blocks); NCHW dx is stored element by element here, and
its dy gather is one load per element. A gradient has no epilogue: a spec
with a bias, an activation, a residual or a scale is refused. The tile is conv_igemm_fwd's (igemm_tiles.json,
IgemmSpec): the GEMM has the same shape class, many pixel rows by few channel
columns. The kernel is

    conv_igemm_dgrad_<case id>(dy, w, dx)

run over grid(spec).
"""

import dataclasses
import itertools
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
from tile.copy import UNCHECKED
from tile.gather import PADDING_BIT, Gather
from tile.gemm import GemmConfig, Operands, epilogue, mainloop

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]


def grid(spec):
    """Workgroups: channel blocks across x, pixel blocks across y, groups across z."""
    m, n, _ = spec.dgrad_gemm
    return (-(-n // spec.tile.block_n), -(-m // spec.tile.block_m), spec.conv.groups)


def _check(spec):
    found = spec.conv.epilogue_field()
    if found is not None:
        field, value, default = found
        raise IgemmSpecError(
            f"conv_igemm_dgrad: ConvSpec.{field}: expected {default!r} (a data gradient has no bias, activation, "
            f"residual or scale), got {value!r}; conv_igemm_fwd takes {field}",
            f"ConvSpec.{field}",
            value,
            [default],
        )


def _split(b, r, kpg):
    """(tap, filter in the group) of reduction index r: tap-major, filter fastest."""
    return b.udiv(r, kpg), b.urem(r, kpg)


def _steps_in_one_tap(spec):
    """Whether every k step of the reduction (tap-major, K/groups filters fastest) lies inside one filter tap."""
    return spec.conv.k_per_group % spec.tile.block_k == 0


def _missed_dims(c):
    """The spatial dims in which some (input pixel, tap) reaches no output
    pixel: strided ones (a pixel between two outputs), and those where a
    tap's o x stride = i + pad - t x dilation falls before the first
    output or past the last."""
    return [
        d
        for d, (size, out, stride, pad, dil, f) in enumerate(
            zip(c.spatial, c.output, c.stride, c.pad, c.dilation, c.filter)
        )
        if stride > 1 or pad < (f - 1) * dil or size - 1 + pad > (out - 1) * stride
    ]


def _miss_mask(b, c, shifted, dims):
    """A lane's i32 with bit `tap` set where input pixel (i + pad = `shifted`)
    reaches no output pixel through that tap in one of `dims`."""
    missed, mask = {}, None
    for tap, ts in enumerate(itertools.product(*(range(f) for f in c.filter))):
        out = None
        for d in dims:
            if (d, ts[d]) not in missed:
                x = b.sub(shifted[d], ts[d] * c.dilation[d])  # o x stride
                miss = b.or_(b.cmp("lt", x, 0), b.cmp("gt", x, (c.output[d] - 1) * c.stride[d]))
                if c.stride[d] > 1:  # unsigned: a negative x is a miss already, whatever its remainder
                    miss = b.or_(miss, b.cmp("ne", b.urem(x, c.stride[d]), 0))
                missed[d, ts[d]] = miss
            out = missed[d, ts[d]] if out is None else b.or_(out, missed[d, ts[d]])
        bit = b.select(out, b.const(1 << tap, T.I32), b.const(0, T.I32))
        mask = bit if mask is None else b.or_(mask, bit)
    return mask


def _dy_stepped(c):
    """A's stepped offset (tile.gather's Gather.stepped): the byte offset in
    dy (NHWC, from the group's first channel) of unit (row, k0 + k), with
    PADDING_BIT set where input pixel `row` reaches no output pixel through
    k0's tap. Where input position i and tap t reach an output, o = (i + pad
    - t x dilation) / stride exactly, so t x dilation = i + pad modulo the
    stride and o = q - floor(t x dilation / stride) with q = floor((i + pad)
    / stride): a lane part (q and filter k, fixed over the loop) plus a k
    step's (k0 = tap x K/g + its first filter, less tap x K/g and each
    dim's floor(t x dilation / stride) output rows: wave-uniform). The
    mask of taps that miss is the lane's, computed once."""
    kpg, elem, taps = c.k_per_group, common.ELEM[c.dtype], math.prod(c.filter)
    shape, dims = c.output_shape(), _missed_dims(c)

    def stepped(b, row, k0, k):
        n, *i = common.unflatten(b, row, (c.n, *c.spatial))
        shifted = [b.add(ii, pad) for ii, pad in zip(i, c.pad)]
        q = [
            sh if stride == 1 else gather_address.floor_div(b, sh, stride, size + pad)
            for sh, stride, size, pad in zip(shifted, c.stride, c.spatial, c.pad)
        ]
        lane = common.layout_index(b, c, n, q, k, shape)
        moving = [d for d, f in enumerate(c.filter) if f > 1]
        tap = gather_address.floor_div(b, k0, kpg, kpg * taps) if moving or dims else None
        step = k0
        for d in moving:
            inner, f, stride, dil = math.prod(c.filter[d + 1 :]), c.filter[d], c.stride[d], c.dilation[d]
            rows = math.prod(shape[d + 2 :])  # dy elements per output position along d
            t = gather_address.floor_div(b, tap, inner, taps)
            if d > 0:
                t = b.sub(t, b.mul(gather_address.floor_div(b, t, f, -(-taps // inner)), f))
            if dil % stride == 0:
                step = b.add(step, b.mul(t, -(dil // stride * rows + kpg * inner)))
            else:
                back = gather_address.floor_div(b, b.mul(t, dil), stride, (f - 1) * dil + 1)
                step = b.sub(b.add(step, b.mul(t, -kpg * inner)), b.mul(back, rows))
        offset = b.add(b.mul(lane, elem.nbytes), b.mul(step, elem.nbytes))
        if not dims:
            return offset
        bit = b.and_(b.shr(_miss_mask(b, c, shifted, dims), tap), 1)
        return b.or_(offset, b.shl(bit, PADDING_BIT))

    return stepped


def _dy_gather(spec):
    """A: the group's dy[n, o, k] for input pixel `row` and reduction r = (tap, k)
    (an index from the group's first channel); zero where no output pixel
    reaches this input pixel through the tap. Stepped (_dy_stepped) where
    dy's units are vector loads, every k step inside one tap and the taps
    fit a lane's mask."""
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
            # Unsigned: a negative o reads as 2^32 - |o|, so its quotient (over
            # 2^31 / stride) lies past the output and `off` marks it a miss.
            if stride > 1:
                between = b.urem(o, stride)  # non-zero: between two output pixels (or before the first)
                o = b.udiv(o, stride)
            off = b.sub(o, b.min(b.max(o, 0), out - 1))  # non-zero: outside the output
            part = off if between is None else b.or_(off, between)
            miss = part if miss is None else b.or_(miss, part)
            pos.append(o)
        valid = b.cmp("eq", miss, 0)
        return common.layout_index(b, c, n, pos, k, c.output_shape()), valid

    runs = c.channels_last and gather_address.whole_units(kpg, c.dtype)
    if not (runs and _steps_in_one_tap(spec) and math.prod(c.filter) <= gather_address.MAX_STEPPED_TAPS):
        return Gather(address, runs=runs)
    extent = math.prod(c.output_shape()) * common.ELEM[c.dtype].nbytes
    return Gather(address, runs=True, stepped=_dy_stepped(c), extent=extent)


def _w_gather(spec):
    """B: the group's w[k, tap, col] (NHWC) or w[k, col, tap] (NCHW), or None
    for a 1x1 filter, whose w is B itself: [K/g, C/g] row-major, ld = C/g.
    In NHWC with C/groups in whole 16-byte units, 8 consecutive columns are
    one vector load (runs along B's rows, transposed on the way to LDS), and
    where every k step lies inside one tap the fast loop's offsets are
    stepped: the lane's (filter k, column) fixed, the k step's (its first
    filter and its tap) wave-uniform, through a buffer that never leaves the
    weights (unchecked). Otherwise one element at a time."""
    c = spec.conv
    kpg, cpg, taps = c.k_per_group, c.c_per_group, math.prod(c.filter)
    elem = common.ELEM[c.dtype]
    if taps == 1:
        return None

    def address(b, col, r):
        tap, k = _split(b, r, kpg)
        if c.channels_last:
            return b.add(b.mul(b.add(b.mul(k, taps), tap), cpg), col), None
        return b.add(b.mul(b.add(b.mul(k, cpg), col), taps), tap), None

    if not (c.channels_last and gather_address.whole_units(cpg, c.dtype)):
        return Gather(address, runs=False)
    if not _steps_in_one_tap(spec):
        return Gather(address, runs=True, contiguous="rows")

    def stepped(b, col, k0, k):
        # k0 = tap x K/g + first filter f: w[f + k, tap, col] = (k x taps + col) + (k0 x taps - tap x (K/g x taps - 1)) x C/g.
        lane = b.add(b.mul(k, taps * cpg), col)
        step = b.mul(k0, taps * cpg)
        if taps > 1:
            tap = gather_address.floor_div(b, k0, kpg, kpg * taps)
            step = b.sub(step, b.mul(tap, (kpg * taps - 1) * cpg))
        return b.add(b.mul(lane, elem.nbytes), b.mul(step, elem.nbytes))

    return Gather(address, runs=True, contiguous="rows", stepped=stepped, extent=UNCHECKED)


def _phase_problem(spec):
    """The stride-1 problem whose GEMM a one-phase spec computes
    (IgemmSpec.dgrad_one_phase): dy's pixels as its input, so its A and B
    are a stride-1 1x1 layer's."""
    c = spec.conv
    return dataclasses.replace(spec, conv=dataclasses.replace(c, spatial=c.output, stride=(1,) * c.dims))


def _store_phase(b, spec, acc, dx, group, row0, col0):
    """A one-phase spec's dx (IgemmSpec.dgrad_one_phase), NHWC: GEMM row o is
    input pixel o x stride, and the row writes zeros over the rest of its
    cell [o x stride, o x stride + stride) inside the input. The cells tile
    the input, as (out - 1) x stride < X <= out x stride. No branches: an
    element past M, C/groups or the input is stored at dx's byte size, past
    its buffer's range, and the hardware drops it (as tile.epilogue's edge
    does). A branch would let LLVM 20 sink a short reduction's matrix ops
    into it, under a partial EXEC mask."""
    c = spec.conv
    m, cpg, _ = spec.dgrad_gemm
    elem = common.ELEM[c.dtype]
    nbytes = math.prod(c.input_shape()) * elem.nbytes
    dst = b.buffer_rsrc(dx, nbytes)
    first = b.mul(group, cpg)
    zero = b.const(0.0, elem)
    for row, col, values in list(acc.runs(b)):
        gr, gc = b.add(row0, row), b.add(col0, col)
        channel = b.add(first, gc)
        inside = b.and_(b.cmp("lt", gr, m), b.cmp("lt", gc, cpg))
        n, *o = common.unflatten(b, gr, (c.n, *c.output))
        base = [od if s == 1 else b.mul(od, s) for od, s in zip(o, c.stride)]
        out = [b.convert(v, elem) for v in values]
        for cell in itertools.product(*(range(s) for s in c.stride)):
            pos = [at if d == 0 else b.add(at, d) for at, d in zip(base, cell)]
            ok = inside
            for p, d, s, x, on in zip(pos, cell, c.stride, c.spatial, c.output):
                if (on - 1) * s + d >= x:  # only a cell's far pixels can lie past the input's end
                    ok = b.and_(ok, b.cmp("lt", p, x))
            at = b.mul(common.layout_index(b, c, n, pos, channel, c.input_shape()), elem.nbytes)
            for j, value in enumerate(out):
                offset = at if j == 0 else b.add(at, j * elem.nbytes)
                b.buffer_store(dst, b.select(ok, offset, nbytes), zero if any(cell) else value)


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
            index = b.add(b.mul(b.add(b.mul(b.udiv(gr, pixels), c.c), channel), pixels), b.urem(gr, pixels))
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
    problem = _phase_problem(spec) if spec.dgrad_one_phase else spec
    ops = Operands(
        dy_group,
        w_group,
        b.const(m, T.I32),
        b.const(n, T.I32),
        b.const(k, T.I32),
        0,
        n,  # B's ld where it is not gathered (a 1x1 filter's w)
        a_gather=_dy_gather(problem),
        b_gather=_w_gather(problem),
    )
    row0, col0 = b.mul(b.block_id(1), spec.tile.block_m), b.mul(b.block_id(0), spec.tile.block_n)
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    if spec.dgrad_one_phase:
        _store_phase(b, spec, acc, dx, group, row0, col0)
    elif c.channels_last:
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
