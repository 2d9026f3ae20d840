"""conv_igemm_wgrad: the weight gradient dw of a convolution, from its input x
and output gradient dy, as an implicit GEMM on the matrix cores.

    dw[k, c, tap] = sum over n and output pixels o of dy[n, k, o] x[n, c, o*stride + tap*dilation - pad]

Each group is its own GEMM, built from platform/tile's main loop and
epilogue:

    rows     m = filters of the group, K / groups
    columns  n = channels of the group x filter taps, C / groups x taps
    reduce   k = N x output pixels

A is dy transposed: in NHWC dy is [N x pixels, K], so A is column-major
(ld = K, the group's rows at g x K/groups), copied by 16-byte loads of 8
filters; in NCHW ([N, K, pixels]) it is gathered (tile.gather), with
16-byte loads where a 16-byte unit of pixels never crosses an image
(pixels a multiple of 8). B is the im2col matrix of x, never written: a
tile.gather (Operands.b_gather) computes each element's input address from
(channel, tap, n, pixel), zero in the padding. Consecutive k are output
pixels, never consecutive in memory, but consecutive columns are
consecutive channels: in NHWC, when C/groups is a multiple of 8, the 8
columns of a 16-byte unit are 8 channels of one input pixel, so the gather
runs along rows (Gather.contiguous = "rows"): one vector load per unit,
zeroed in the padding, transposed into LDS by the copy. Otherwise (and in
NCHW) one load per element, along k. A 1x1 filter with stride 1 and no
padding in NHWC (plain_input) needs no gather: row k of B is input pixel k,
so B is x itself, row-major [N x pixels, C], copied as a GEMM's B (no
address work per unit; on gfx950 read transposed from LDS, so it needs no
transposing LDS writes).

The columns follow dw's own layout (tap-major, channel fastest, in NHWC;
channel-major in NCHW), so dw is the GEMM's C, row-major with ld = C/groups
x taps, the group's rows at g x K/groups: stored by tile.epilogue.

Split-K (WgradSpec.split, .mode: conv.wgrad_spec) cuts the reduction into S
slices of whole k steps (WgradSpec.rows); grid z runs groups x splits,
group fastest. The output type follows the mode:

    none       dw in the input type (f16 or bf16): the sum is complete,
               converted once.
    two_stage  f32 partial sums in workspace[s x E + e] (dw's layout per
               slice): a partial sum rounded to f16 or bf16 would lose what
               the other splits add; conv_fwd_split_k_reduce sums the S
               slices and converts to the input type.
    atomic     f32 dw, atomically added to (zeroed before the launch): the
               GPU adds floats atomically in f32, not in f16 or bf16, and
               the splits' order of arrival varies, so the bits of dw may
               differ from run to run (two_stage does not).

Sizes are compile-time constants of the spec: the kernel is

    conv_igemm_wgrad_<case id>(x, dy, dw | workspace)

run over WgradSpec.grid().
"""

import math

import numpy as np

from arch import arch as archs
from arch.mma_forms import FORMS
from conv import common, gather_address, reference
from conv.cases import igemm_wgrad_cases
from conv.family_names import NAMES
from conv.wgrad_spec import WgradSpecError
from family import bound
from family.family import Family, NumericCheck
from ir import types as T
from ir.builder import KernelBuilder
from tile.gather import Gather
from tile.gemm import GemmConfig, Operands, epilogue, mainloop

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]

# The kernel's third argument, by mode.
OUTPUT = {"none": "dw", "two_stage": "workspace", "atomic": "dw"}


def _form(spec, arch):
    form = FORMS.get((spec.igemm.op, archs.get(arch).generation))
    if form is None or arch not in form.archs:
        raise WgradSpecError(
            f"WgradSpec.igemm.tile.mma: expected a matrix-core shape {arch} has for {spec.conv.dtype}, got {spec.igemm.tile.mma!r}; take {arch}'s tile from conv.wgrad_spec.TILES",
            "WgradSpec.igemm.tile.mma",
            spec.igemm.tile.mma,
        )
    return form


def plain_input(c):
    """Whether B is x itself, row-major [N x pixels, C] (ld = C, the group's columns at g x C/groups):
    NHWC, a 1x1 filter, stride 1 and no padding (each output pixel reads its own input pixel), and
    C/groups whole 16-byte units (the copy's aligned vector loads). B is then copied as a GEMM's
    row-major B: no per-element address, and on gfx950 its fragments are read transposed
    (tile.gemm), with no transposing LDS writes."""
    return (
        c.channels_last
        and all(f == 1 for f in c.filter)
        and all(s == 1 for s in c.stride)
        and all(p == 0 for p in c.pad)
        and gather_address.whole_units(c.c_per_group, c.dtype)
    )


def _input_gather(spec, group, first):
    """B: x at (column: channel and tap, k: reduction row first + k, i.e. image and output pixel)."""
    c = spec.conv

    def address(b, col, k):
        row = k if first is None else b.add(first, k)
        n, o = gather_address.output_pixel(b, c, row)
        return gather_address.input_address(b, c, group, n, o, col)

    runs = c.channels_last and gather_address.whole_units(c.c_per_group, c.dtype)
    return Gather(address, runs=runs, contiguous="rows" if runs else "k")


def _dy_gather(spec, group, first):
    """A in NCHW: dy[n, g*K/g + row, pixel] at (row, k: reduction row first + k)."""
    c = spec.conv
    pixels = math.prod(c.output)
    kpg = c.k_per_group

    def address(b, row, k):
        r = k if first is None else b.add(first, k)
        n, p = b.udiv(r, pixels), b.urem(r, pixels)
        channel = b.add(b.mul(group, kpg), row)
        return b.add(b.mul(b.add(b.mul(n, c.k), channel), pixels), p), None

    return Gather(address, runs=gather_address.whole_units(pixels, c.dtype))


def _split(b, spec, z):
    """(group, first reduction row or None, reduction length, output element offset) of workgroup z."""
    c = spec.conv
    m, n, r = spec.gemm
    if spec.split == 1:
        return z, None, b.const(r, T.I32), b.mul(z, m * n)
    group, part = b.urem(z, c.groups), b.udiv(z, c.groups)
    step, steps = spec.igemm.tile.block_k, spec.steps
    first = b.mul(b.udiv(b.mul(part, steps), spec.split), step)  # WgradSpec.rows
    end = b.min(b.mul(b.udiv(b.mul(b.add(part, 1), steps), spec.split), step), r)
    offset = b.mul(group, m * n)
    if spec.mode == "two_stage":
        offset = b.add(b.mul(part, spec.elements), offset)
    return group, first, b.sub(end, first), offset


def _slice_origin(b, first, channels, group, width):
    """The element of a channels-last tensor (pixels of `channels` each) at
    which this block's operand starts: pixel `first` (None: pixel 0), then
    `group` groups of `width` channels."""
    if first is None:
        return b.mul(group, width)
    return b.add(b.mul(first, channels), b.mul(group, width))


def build(case):
    spec = case.spec
    c = spec.conv
    tile = spec.igemm.tile
    form = _form(spec, case.arch)
    cfg = GemmConfig(spec.igemm.op, tile)
    b = KernelBuilder(
        NAME + "_" + case.id,
        arch=case.arch,
        workgroup_size=(cfg.threads(form.wave), 1, 1),
        wave_size=form.wave,
    )
    x, dy, out = b.arg("x", T.GLOBAL), b.arg("dy", T.GLOBAL), b.arg(OUTPUT[spec.mode], T.GLOBAL)
    elem, out_elem = common.ELEM[c.dtype], common.ELEM[spec.out_dtype]
    m, n, _ = spec.gemm
    group, first, length, offset = _split(b, spec, b.block_id(2))
    mv, nv = b.const(m, T.I32), b.const(n, T.I32)
    if c.channels_last:
        a = b.offset(dy, b.mul(_slice_origin(b, first, c.k, group, m), elem.nbytes))
        if plain_input(c):
            bx = b.offset(x, b.mul(_slice_origin(b, first, c.c, group, n), elem.nbytes))
            ops = Operands(a, bx, mv, nv, length, c.k, c.c, a_layout="col")
        else:
            ops = Operands(a, x, mv, nv, length, c.k, 0, a_layout="col", b_gather=_input_gather(spec, group, first))
    else:
        ops = Operands(
            dy,
            x,
            mv,
            nv,
            length,
            0,
            0,
            a_gather=_dy_gather(spec, group, first),
            b_gather=_input_gather(spec, group, first),
        )
    row0, col0 = b.mul(b.block_id(1), tile.block_m), b.mul(b.block_id(0), tile.block_n)
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    dst = b.offset(out, b.mul(offset, out_elem.nbytes))
    epilogue(
        b,
        acc.runs(b),
        dst,
        n,
        ops.m,
        ops.n,
        row0,
        col0,
        out_elem,
        atomic=spec.mode == "atomic",
        inside=acc.inside,
        rows=tile.block_m,
    )
    return b.finish()


# -- numbers --------------------------------------------------------------------------


def owned(spec, part):
    """A mask over dy's (n, output pixel) rows, 1 on those split `part` owns (WgradSpec.rows), in dy's layout."""
    c = spec.conv
    first, end = spec.rows(part)
    rows = np.arange(c.n * math.prod(c.output)).reshape(c.n, *c.output)
    inside = (rows >= first) & (rows < end)
    return inside[..., None] if c.channels_last else inside[:, None]


def expected(spec, x64, dy64):
    """What the kernel writes, from reference.wgrad: dw, or per split the wgrad of its rows alone."""
    c = spec.conv
    if spec.mode != "two_stage":
        return reference.wgrad(c, x64, dy64)
    return np.concatenate([reference.wgrad(c, x64, dy64 * owned(spec, s)).ravel() for s in range(spec.split)])


def numeric_check(case, rng):
    spec = case.spec
    c = spec.conv
    x, x64 = common.encode(rng.standard_normal(c.input_shape()), c.dtype)
    dy, dy64 = common.encode(rng.standard_normal(c.output_shape()) / math.sqrt(spec.gemm[2]), c.dtype)
    store_type, poison = common.POISON[spec.out_dtype]
    if spec.mode == "atomic":
        poison = 0.0  # atomic adds land on a zeroed dw
    shape = (spec.out_elements,) if spec.mode == "two_stage" else c.weight_shape()
    out = np.full(shape, poison, store_type)
    # The reduction's length bounds every mode: a split's rows and the S - 1 adds
    # that join the splits (atomic) are at most N x pixels, as each split owns a row or more.
    want = bound.expected(lambda x_, dy_: expected(spec, x_, dy_), (x64, dy64), spec.gemm[2], spec.out_dtype)
    # Grid z runs the splits (and groups): a sampled tile runs every split that adds to it.
    whole = (2,) if spec.split > 1 else ()
    return NumericCheck([x, dy, out], spec.grid(), {2: want}, lambda v: common.decode(v, spec.out_dtype), whole)


FAMILY = Family(NAME, igemm_wgrad_cases(), build, numeric_check)
