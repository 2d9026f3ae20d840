"""conv_fwd_split_k_reduce: the second pass of a split-K convolution.

A split kernel (conv_igemm_fwd with IgemmSpec.split_k = S, or
conv_igemm_wgrad's two-stage split) leaves S f32 partial sums in a
workspace: slice s at element s x E, E the output's elements, each slice in
the output's own layout. This kernel adds them up and finishes the output:

    y[e] = convert(finish(sum_{s<S} ws[s x E + e]))

finish being the layer's epilogue (tile.gemm.finish, applied once, after the
sum): bias[channel(e)], a residual r[e] (the output's shape and type) before
or after the activation, the activation and the scale, each only where the
layer has it (ConvSpec). channel(e) follows the output layout: e % K
channels-last, (e / pixels) % K channels-first (Channels). The sum runs in
f32, slice by slice in order.

Each lane reduces V consecutive elements, V the widest of 4, 2, 1 that
divides E: every slice (at s x E) and the output then stay aligned for it,
and a lane's V elements are wholly inside or outside, so one bounds check
per lane's vector. Its loads are one V-wide f32 load per slice (16 bytes at
V = 4) and one V-wide store of the output type. The bias of V elements is
one wide load where they are V consecutive channels (channels-last,
K % V == 0), one load where they share a channel (channels-first,
pixels % V == 0), else one load each. The residual of V elements is one
V-wide load of the output type.

reduce_kernel(name, arch, elements, splits, dtype, ...) is the plain
builder, for any split family; this module's FAMILY builds it from a
conv.reduce_spec.ReduceSpec: a forward layer's y, or (tensor "dw") a
two-stage weight gradient's dw, with no epilogue:

    conv_fwd_split_k_reduce_<case id>(ws, y, [bias], [residual])

run over grid(E).
"""

import dataclasses
import math

import numpy as np

from conv import common
from case_archs import ARCHS
from conv.family_names import NAMES
from conv.reduce_spec import ReduceSpec, vector_width
from conv.spec import ConvSpec
from family import bound
from family.family import Case, Chained, Family, NumericCheck
from ir import types as T
from ir.builder import KernelBuilder
from tile.gemm import finish, scale_value, spec_epilogue

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]

WORKGROUP = 256


@dataclasses.dataclass(frozen=True)
class Channels:
    """Where element e's bias is: bias[(e / inner) % count]."""

    count: int  # K
    inner: int  # elements per channel run: 1 channels-last, output pixels channels-first


def channels_of(conv):
    """The Channels of a ConvSpec's output layout."""
    return Channels(conv.k, 1 if conv.channels_last else math.prod(conv.output))


def grid(elements):
    return (-(-elements // (WORKGROUP * vector_width(elements))), 1, 1)


def _load(b, ptr, v):
    """v f32 values at ptr: one load, its elements."""
    if v == 1:
        return [b.load(ptr, T.F32)]
    loaded = b.load(ptr, T.vector(T.F32, v))
    return [b.extract(loaded, j) for j in range(v)]


def _channel(b, e, channels):
    index = e if channels.inner == 1 else b.udiv(e, channels.inner)
    return b.urem(index, channels.count)


def _bias(b, bias, first, channels, v):
    """The bias of elements first .. first + v - 1, as f32 values."""
    if channels.inner == 1 and channels.count % v == 0:  # v consecutive channels
        return _load(b, b.offset(bias, b.mul(_channel(b, first, channels), 4)), v)
    if channels.inner % v == 0:  # one channel
        return [b.load(b.offset(bias, b.mul(_channel(b, first, channels), 4)), T.F32)] * v
    return [b.load(b.offset(bias, b.mul(_channel(b, b.add(first, j), channels), 4)), T.F32) for j in range(v)]


def reduce_kernel(name, arch, elements, splits, dtype, channels=None, residual=False, epilogue=None):
    """The reduce kernel `name`(ws, y, [bias], [residual]) on `arch`: y
    (`dtype`, E = `elements`) from `splits` f32 slices of ws, through
    tile.gemm.finish before the conversion: bias[channel] with `channels`
    (a Channels), the residual where `residual`, and `epilogue` (finish's
    activation, residual_at and scale; None: none)."""
    elem = common.ELEM[dtype]
    v = vector_width(elements)
    b = KernelBuilder(name, arch=arch, workgroup_size=(WORKGROUP, 1, 1))
    ws, y = b.arg("ws", T.GLOBAL), b.arg("y", T.GLOBAL)
    bias = b.arg("bias", T.GLOBAL) if channels is not None else None
    near = b.arg("residual", T.GLOBAL) if residual else None
    first = b.mul(b.add(b.mul(b.block_id(0), WORKGROUP), b.thread_id(0)), v)
    with b.if_(b.cmp("lt", first, elements)):
        total = _load(b, b.offset(ws, b.mul(first, 4)), v)
        for s in range(1, splits):
            part = _load(b, b.offset(ws, b.mul(b.add(first, s * elements), 4)), v)
            total = [b.add(t, p) for t, p in zip(total, part)]
        biases = None if bias is None else _bias(b, bias, first, channels, v)
        residuals = None
        if near is not None:
            loaded = b.load(b.offset(near, b.mul(first, elem.nbytes)), elem if v == 1 else T.vector(elem, v))
            residuals = [b.convert(loaded if v == 1 else b.extract(loaded, j), T.F32) for j in range(v)]
        total = [
            finish(
                b,
                [t],
                bias=None if biases is None else lambda _, j=j: biases[j],
                residual=None if residuals is None else lambda _, j=j: residuals[j],
                **(epilogue or {}),
            )[0]
            for j, t in enumerate(total)
        ]
        out = [b.convert(t, elem) for t in total]
        b.store(b.offset(y, b.mul(first, elem.nbytes)), out[0] if v == 1 else b.build(out))
    return b.finish()


def build(case):
    s = case.spec
    c = s.conv
    return reduce_kernel(
        NAME + "_" + case.id,
        case.arch,
        s.elements,
        s.split_k,
        c.dtype,
        channels_of(c) if c.bias else None,
        c.residual != "none",
        spec_epilogue(c),
    )


# -- numbers --------------------------------------------------------------------------


def reference(spec, ws, bias, residual=None):
    """numpy: the slices' sum (float64), bias broadcast over the output's
    channel axis, and the residual where given: the epilogue's linear part."""
    c = spec.conv
    total = ws.astype(np.float64).sum(axis=0)
    if bias is not None:
        axis = c.dims + 1 if c.channels_last else 1
        shape = [1] * total.ndim
        shape[axis] = c.k
        total = total + bias.astype(np.float64).reshape(shape)
    return total if residual is None else total + residual


def numeric_check(case, rng):
    s = case.spec
    c = s.conv
    ws = rng.standard_normal((s.split_k, *s.shape)).astype(np.float32)
    store_type, poison = common.POISON[c.dtype]
    y = np.full(s.shape, poison, store_type)
    extra, bias, residual64 = common.epilogue_args(c, rng)
    before = residual64 if c.residual == "before_activation" else None
    after = residual64 if c.residual == "after_activation" else None
    length = s.split_k + (bias is not None) + (before is not None)  # the slices, the bias, the residual
    pre = bound.expected(lambda ws_, b_, r_: reference(s, ws_, b_, r_), (ws, bias, before), length, c.dtype)
    want = bound.finished(pre, c.activation, after, scale_value(c.scale))
    return NumericCheck([ws, y, *extra], grid(s.elements), {1: want}, lambda v: common.decode(v, c.dtype))


def chain(case, args, written, rng):
    """The reduce fed by the split kernel run before it (Family.chain): `args`
    that kernel's (x, w, ws) after its launch, ws the S slices in the output's
    shape, `written` the elements its launch wrote; the output expected is
    the whole layer's, numpy's forward convolution through the epilogue
    (common.expected), on the elements whose S slices were all written. The
    workgroups launched are those holding one of them. None for a producer
    whose arguments are not those (a reduce of dw, whose two-stage split
    leaves a flat workspace): the reduce is then checked alone."""
    s = case.spec
    if s.tensor != "y":
        return None
    c = s.conv
    shapes = (c.input_shape(), c.weight_shape(), (s.split_k, *c.output_shape()))
    if len(args) != 3 or any(np.shape(a) != shape for a, shape in zip(args, shapes)) or args[2].dtype != np.float32:
        return None
    x64, w64 = common.decode(args[0], c.dtype), common.decode(args[1], c.dtype)
    store_type, poison = common.POISON[c.dtype]
    y = np.full(c.output_shape(), poison, store_type)
    extra, bias, residual64 = common.epilogue_args(c, rng)
    covered = np.asarray(written[2]).reshape(shapes[2]).all(axis=0)
    per_workgroup = WORKGROUP * vector_width(s.elements)
    workgroups = [(int(g), 0, 0) for g in np.unique(np.flatnonzero(covered) // per_workgroup)]
    numeric = NumericCheck(
        [args[2], y, *extra],
        grid(s.elements),
        {1: common.expected(c, x64, w64, bias, residual64)},
        lambda v: common.decode(v, c.dtype),
    )
    return Chained(numeric, workgroups, {1: covered})


# conv_fwd_split_k_reduce: name -> (layer, S). The output's elements E pick
# the lane vector (4, 2 or 1 wide) and the bias path (wide, one channel per
# vector, per element); S from 2 to 16; every output type and layout.
REDUCE = {
    "resnet_3x3_f16_s4": (ConvSpec(1, 64, 64, (7, 7), (3, 3), pad=(1, 1)), 4),
    # NHWC bias, K a multiple of 4: one wide bias load; E = two whole workgroups.
    "resnet_1x1_bias_f16_s2": (ConvSpec(2, 32, 64, (8, 8), (1, 1), bias=True, activation="relu"), 2),
    # NCHW bias, 36 pixels: a vector's 4 elements share one channel.
    "nchw_bias_bf16_s3": (
        ConvSpec(1, 12, 20, (6, 6), (3, 3), pad=(1, 1), layout="NCHW", dtype="bf16", bias=True, activation="relu"),
        3,
    ),
    # NCHW bias, 25 pixels: a vector can cross channels, one bias load per element.
    "nchw_odd_pixels_bias_f16_s2": (
        ConvSpec(1, 8, 12, (5, 5), (3, 3), pad=(1, 1), layout="NCHW", bias=True, activation="relu"),
        2,
    ),
    # NHWC bias, K = 6: a vector can cross channels.
    "nhwc_k6_bias_bf16_s4": (
        ConvSpec(1, 8, 6, (4, 4), (3, 3), pad=(1, 1), dtype="bf16", bias=True, activation="relu"),
        4,
    ),
    # E = 125, odd: one element per lane, 16 slices, f32 out (no conversion).
    "odd_elements_f32_s16": (ConvSpec(1, 4, 5, (5, 5), (3, 3), pad=(1, 1), dtype="f32"), 16),
    # E = 54: two elements per lane, bias on two consecutive channels.
    "two_wide_bias_f32_s2": (ConvSpec(1, 4, 6, (3, 3), (1, 1), dtype="f32", bias=True, activation="relu"), 2),
    "video_3d_f16_s8": (ConvSpec(1, 8, 16, (3, 4, 4), (3, 3, 3), pad=(1, 1, 1)), 8),
    "ncdhw_bias_bf16_s2": (
        ConvSpec(
            1, 8, 8, (3, 4, 4), (2, 3, 3), pad=(0, 1, 1), layout="NCHW", dtype="bf16", bias=True, activation="relu"
        ),
        2,
    ),
    # E = 8: two lanes of one workgroup.
    "single_pixel_f16_s5": (ConvSpec(1, 16, 8, (3, 3), (3, 3)), 5),
    # E = 1296: a whole workgroup then a partial one.
    "partial_workgroup_bf16_s2": (ConvSpec(1, 16, 36, (6, 6), (3, 3), pad=(1, 1), dtype="bf16"), 2),
    "nchw_f32_s3": (ConvSpec(2, 4, 4, (6, 6), (3, 3), layout="NCHW", dtype="f32"), 3),
    # Epilogues, once after the sum: ReLU6 with a residual after it (4-wide residual loads);
    # channels-first tanh GELU, a residual before it and a scale (E = 300: 4-wide, one bias each).
    "nhwc_relu6_residual_after_f16_s2": (
        ConvSpec(1, 8, 8, (4, 4), (3, 3), pad=(1, 1), bias=True, activation="relu6", residual="after_activation"),
        2,
    ),
    "nchw_gelu_tanh_residual_scale_bf16_s3": (
        ConvSpec(
            1,
            8,
            12,
            (5, 5),
            (3, 3),
            pad=(1, 1),
            layout="NCHW",
            dtype="bf16",
            bias=True,
            activation="gelu_tanh",
            residual="before_activation",
            scale="2",
        ),
        3,
    ),
    # E = 54 (2-wide) and f32: erf GELU alone.
    "two_wide_gelu_erf_f32_s2": (ConvSpec(1, 4, 6, (3, 3), (1, 1), dtype="f32", activation="gelu_erf"), 2),
}


# The reduce of a weight gradient's two-stage split (tensor "dw", no
# epilogue): dw's elements in the weight's layout and type; S as large as
# tile_for's splits of a long reduction make it.
REDUCE_DW = {
    "dw_3x3_f16_s2": (ConvSpec(1, 32, 32, (7, 7), (3, 3), pad=(1, 1)), 2),
    "dw_nchw_bf16_s64": (ConvSpec(1, 8, 12, (5, 5), (3, 3), pad=(1, 1), layout="NCHW", dtype="bf16"), 64),
}


def reduce_cases():
    specs = [(name, ReduceSpec(conv, s)) for name, (conv, s) in REDUCE.items()]
    specs += [(name, ReduceSpec(conv, s, "dw")) for name, (conv, s) in REDUCE_DW.items()]
    return tuple(Case(f"{name}_{arch}", arch, spec) for name, spec in specs for arch in ARCHS)


FAMILY = Family(NAME, reduce_cases(), build, numeric_check, chain)
