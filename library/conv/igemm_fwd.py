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
per element.

Output NHWC is the GEMM's C (row-major, ld = K, the group's columns at
g x K/groups) and goes through tile.epilogue (vector stores in whole
blocks); NCHW output is stored element by element here. bias + relu are
applied before the conversion to the input type. Sizes are compile-time
constants of the spec: the kernel is

    conv_igemm_fwd_<case id>(x, w, y, [bias])

run over IgemmSpec.grid().
"""

import math

import numpy as np

from arch import arch as archs
from arch.mma_forms import FORMS
from conv import common
from conv.cases import igemm_fwd_cases
from conv.igemm_tiles import IgemmSpecError
from family.family import Family, Problem
from ir import types as T
from ir.builder import KernelBuilder
from tile.gather import Gather
from tile.gemm import GemmConfig, Operands, epilogue, mainloop

UNIT_BYTES = 16  # a 16-byte unit of k: what tile.gather's vector loads take


def _form(spec, arch):
    form = FORMS.get((spec.op, archs.get(arch).family))
    if form is None or arch not in form.archs:
        raise IgemmSpecError(f"IgemmSpec.mma: expected a matrix-core shape {arch} has for {spec.conv.dtype}, got {spec.mma!r}; take {arch}'s tile from library/conv/igemm_tiles.json")
    return form


def _gather(spec, group):
    """The im2col matrix of `group` as a tile.gather.Gather over the input."""
    c = spec.conv
    taps = math.prod(c.filter)
    cpg = c.c_per_group

    def address(b, row, k):
        n, *o = common.unflatten(b, row, (c.n, *c.output))
        if c.channels_last:
            tap, ch = b.div(k, cpg), b.rem(k, cpg)
        else:
            ch, tap = b.div(k, taps), b.rem(k, taps)
        t = common.unflatten(b, tap, c.filter)
        pos, valid = [], None
        for oi, ti, size, stride, pad, dil in zip(o, t, c.spatial, c.stride, c.pad, c.dilation):
            x = b.add(b.mul(oi, stride), b.sub(b.mul(ti, dil), pad))
            ok = b.and_(b.cmp("ge", x, 0), b.cmp("lt", x, size))
            valid = ok if valid is None else b.and_(valid, ok)
            pos.append(x)
        channel = b.add(b.mul(group, cpg), ch)
        dims = [n, *pos, channel] if c.channels_last else [n, channel, *pos]
        return common.flatten(b, dims, c.input_shape()), valid

    elem_bytes = common.ELEM[c.dtype].nbytes
    return Gather(address, runs=c.channels_last and cpg % (UNIT_BYTES // elem_bytes) == 0)


def _store_nchw(b, spec, acc, y, bias, group, row0, col0):
    """Channels-first output: y[n, g*K/g + col, pixel], element by element."""
    c = spec.conv
    m, kpg, _ = spec.gemm
    pixels = math.prod(c.output)
    elem = common.ELEM[c.dtype]
    for row, col, value in acc.elements(b):
        gr, gc = b.add(row0, row), b.add(col0, col)
        with b.if_(b.and_(b.cmp("lt", gr, m), b.cmp("lt", gc, kpg))):
            channel = b.add(b.mul(group, kpg), gc)
            if bias is not None:
                value = b.max(b.add(value, b.load(b.offset(bias, b.mul(channel, 4)), T.F32)), 0.0)
            index = b.add(b.mul(b.add(b.mul(b.div(gr, pixels), c.k), channel), pixels), b.rem(gr, pixels))
            b.store(b.offset(y, b.mul(index, elem.nbytes)), b.convert(value, elem))


def build(case):
    spec = case.spec
    c = spec.conv
    form = _form(spec, case.arch)
    cfg = GemmConfig(spec.op, spec.block_m, spec.block_n, spec.block_k, spec.waves_m, spec.waves_n)
    b = KernelBuilder("conv_igemm_fwd_" + case.id, arch=case.arch, workgroup_size=(cfg.threads(form.wave), 1, 1), wave_size=form.wave)
    x, w, y = b.arg("x", T.GLOBAL), b.arg("w", T.GLOBAL), b.arg("y", T.GLOBAL)
    bias = b.arg("bias", T.GLOBAL) if c.bias_relu else None
    elem = common.ELEM[c.dtype]
    m, n, k = spec.gemm
    group = b.block_id(2)
    # This group's filters: K/g rows of k weights each.
    w_group = b.offset(w, b.mul(b.mul(group, n * k), elem.nbytes))
    ops = Operands(x, w_group, b.const(m, T.I32), b.const(n, T.I32), b.const(k, T.I32), 0, k, b_layout="col", a_gather=_gather(spec, group))
    row0, col0 = b.mul(b.block_id(1), spec.block_m), b.mul(b.block_id(0), spec.block_n)
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    activation = "relu" if c.bias_relu else "none"
    if c.channels_last:
        y_group = b.offset(y, b.mul(b.mul(group, n), elem.nbytes))
        bias_group = None if bias is None else b.offset(bias, b.mul(b.mul(group, n), 4))
        epilogue(b, acc.runs(b), y_group, c.k, ops.m, ops.n, row0, col0, elem, bias=bias_group, activation=activation, inside=acc.inside)
    else:
        _store_nchw(b, spec, acc, y, bias, group, row0, col0)
    return b.finish()


# -- numbers --------------------------------------------------------------------------

# A NaN of each input type: an output the kernel never writes fails the check.
POISON = {"f16": (np.float16, np.nan), "bf16": (np.uint16, 0x7FC0)}


def problem(case, rng):
    c = case.spec.conv
    x, x64 = common.encode(rng.standard_normal(c.input_shape()), c.dtype)
    w, w64 = common.encode(rng.standard_normal(c.weight_shape()) / math.sqrt(c.c_per_group * math.prod(c.filter)), c.dtype)
    store_type, poison = POISON[c.dtype]
    y = np.full(c.output_shape(), poison, store_type)
    args = [x, w, y]
    bias = None
    if c.bias_relu:
        bias = rng.standard_normal(c.k).astype(np.float32)
        args.append(bias)
    rtol, atol = common.TOLERANCE[c.dtype]
    return Problem(args, case.spec.grid(), {2: common.reference(c, x64, w64, bias)}, lambda v: common.decode(v, c.dtype), rtol, atol)


FAMILY = Family("conv_igemm_fwd", igemm_fwd_cases(), build, problem)
