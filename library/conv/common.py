"""What both conv families share: the kernel frame (one output per lane),
input taps with padding masks, the epilogue, the numpy reference and the
numeric problem."""

import math

import numpy as np

from family import bound
from family.family import NumericCheck
from ir import types as T
from ir.builder import KernelBuilder
from tile.gemm import finish, scale_value, spec_epilogue

ELEM = {"f32": T.F32, "f16": T.F16, "bf16": T.BF16}
WORKGROUP = 256

# A NaN of each output type, as (numpy store type, value): an output a kernel
# never writes fails the check (bf16 is stored as its bits).
POISON = {"f32": (np.float32, np.nan), "f16": (np.float16, np.nan), "bf16": (np.uint16, 0x7FC0)}


def flatten(b, dims, sizes):
    """Row-major linear index of IR values `dims` in an array of Python `sizes`."""
    index = dims[0]
    for d, size in zip(dims[1:], sizes[1:]):
        index = b.add(b.mul(index, size), d)
    return index


def unflatten(b, index, sizes):
    """IR values of each coordinate of a row-major linear index."""
    coords = []
    for size in reversed(sizes[1:]):
        coords.append(b.urem(index, size))
        index = b.udiv(index, size)
    return [index] + coords[::-1]


def layout_index(b, spec, n, pos, channel, shape):
    """The element index of (n, position, channel) in a tensor of `shape` in
    the spec's layout: channels last (NHWC) or first after n (NCHW)."""
    dims = [n, *pos, channel] if spec.channels_last else [n, channel, *pos]
    return flatten(b, dims, shape)


class Frame:
    """The kernel and the coordinates of the output this lane computes."""

    def __init__(self, name, spec, arch):
        self.spec = spec
        self.elem = ELEM[spec.dtype]
        self.b = b = KernelBuilder(name, arch=arch, workgroup_size=(WORKGROUP, 1, 1))
        self.x, self.w, self.y = b.arg("x", T.GLOBAL), b.arg("w", T.GLOBAL), b.arg("y", T.GLOBAL)
        self.bias = b.arg("bias", T.GLOBAL) if spec.bias else None
        self.residual = b.arg("residual", T.GLOBAL) if spec.residual != "none" else None
        self.gid = b.add(b.mul(b.block_id(0), WORKGROUP), b.thread_id(0))
        coords = unflatten(b, self.gid, spec.output_shape())
        if spec.channels_last:
            self.n, self.o, self.k = coords[0], coords[1:-1], coords[-1]
        else:
            self.n, self.k, self.o = coords[0], coords[1], coords[2:]

    def tap(self, c, taps):
        """The input value (as f32) at channel c and filter offsets `taps`, 0 in the padding."""
        b, s = self.b, self.spec
        pos, inside = [], None
        for o, f, size, stride, pad, dil in zip(self.o, taps, s.spatial, s.stride, s.pad, s.dilation):
            x = (
                b.add(b.mul(o, stride), b.sub(b.mul(f, dil), pad))
                if not isinstance(f, int)
                else b.add(b.mul(o, stride), f * dil - pad)
            )
            ok = b.and_(b.cmp("ge", x, 0), b.cmp("lt", x, size))
            inside = ok if inside is None else b.and_(inside, ok)
            pos.append(b.select(ok, x, 0))  # a safe address; the value is masked below
        index = layout_index(b, s, self.n, pos, c, s.input_shape())
        value = b.convert(b.load(b.offset(self.x, b.mul(index, self.elem.nbytes)), self.elem), T.F32)
        return b.select(inside, value, 0.0)

    def weight(self, index):
        b = self.b
        return b.convert(b.load(b.offset(self.w, b.mul(index, self.elem.nbytes)), self.elem), T.F32)

    def store(self, acc):
        """The epilogue (tile.gemm.finish), convert to the output type, store."""
        b = self.b

        def bias(j):
            return b.load(b.offset(self.bias, b.mul(self.k, 4)), T.F32)

        def residual(j):  # the output's shape and layout: this lane's element
            return b.convert(b.load(b.offset(self.residual, b.mul(self.gid, self.elem.nbytes)), self.elem), T.F32)

        (acc,) = finish(
            b,
            [acc],
            bias=None if self.bias is None else bias,
            residual=None if self.residual is None else residual,
            **spec_epilogue(self.spec),
        )
        b.store(b.offset(self.y, b.mul(self.gid, self.elem.nbytes)), b.convert(acc, self.elem))

    def kernel(self, body):
        """The finished kernel: body() runs only in lanes that have an output
        (the last workgroup is partial)."""
        with self.b.if_(self.b.cmp("lt", self.gid, self.spec.outputs)):
            body()
        return self.b.finish()


def grid(spec):
    return (-(-spec.outputs // WORKGROUP), 1, 1)


# -- numbers --------------------------------------------------------------------------


def encode(x, dtype):
    """float data -> what the kernel reads (f16, bf16 bits, f32), and its exact values."""
    x = np.asarray(x, np.float32)
    if dtype == "f16":
        h = x.astype(np.float16)
        return h, h.astype(np.float64)
    if dtype == "bf16":
        bits = x.view(np.uint32).astype(np.uint64)
        bits = (((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF).astype(np.uint16)
        return bits, (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return x, x.astype(np.float64)


def decode(y, dtype):
    if dtype == "bf16":
        return (y.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return y.astype(np.float64)


def reference(spec, x, w, bias, residual=None):
    """The convolution in float64 numpy, channels-first internally, plus the
    bias and a residual (the output's shape) where given: the epilogue's
    linear part (expected adds the rest)."""
    if spec.channels_last:
        x = np.moveaxis(x, -1, 1)
        w = np.moveaxis(w, -1, 1)
    pads = [(0, 0), (0, 0)] + [(p, p) for p in spec.pad]
    x = np.pad(x, pads)
    out = np.zeros((spec.n, spec.k, *spec.output))
    cpg, kpg = spec.c_per_group, spec.k_per_group
    for taps in np.ndindex(*spec.filter):
        window = tuple(
            slice(t * d, t * d + s * (o - 1) + 1, s)
            for t, d, s, o in zip(taps, spec.dilation, spec.stride, spec.output)
        )
        patch = x[(slice(None), slice(None)) + window]  # n, c, *out
        for g in range(spec.groups):
            xs = patch[:, g * cpg : (g + 1) * cpg]
            ws = w[(slice(g * kpg, (g + 1) * kpg), slice(None)) + tuple(taps)]  # kpg, cpg
            out[:, g * kpg : (g + 1) * kpg] += np.einsum("nc...,kc->nk...", xs, ws)
    if bias is not None:
        out = out + bias.reshape((1, -1) + (1,) * spec.dims)
    out = np.moveaxis(out, 1, -1) if spec.channels_last else out
    return out if residual is None else out + residual


def expected(spec, x64, w64, bias, residual64=None):
    """The forward convolution's bound.Expected through the spec's epilogue:
    reference() and its terms (C/groups x taps products per output, the
    bias, a residual added before the activation), then bound.finished."""
    before = residual64 if spec.residual == "before_activation" else None
    after = residual64 if spec.residual == "after_activation" else None
    length = spec.c_per_group * math.prod(spec.filter) + (bias is not None) + (before is not None)
    pre = bound.expected(lambda x, w, b, r: reference(spec, x, w, b, r), (x64, w64, bias, before), length, spec.dtype)
    return bound.finished(pre, spec.activation, after, scale_value(spec.scale))


def epilogue_args(spec, rng):
    """The bias (K f32 values) and residual (the output's shape, encoded) a kernel takes after y, each
    where the spec asks for it: (the arguments, the bias, the residual's exact values or None)."""
    args, bias, residual64 = [], None, None
    if spec.bias:
        bias = rng.standard_normal(spec.k).astype(np.float32)
        args.append(bias)
    if spec.residual != "none":
        residual, residual64 = encode(rng.standard_normal(spec.output_shape()), spec.dtype)
        args.append(residual)
    return args, bias, residual64


def numeric_check(spec, rng):
    x, x64 = encode(rng.standard_normal(spec.input_shape()), spec.dtype)
    w, w64 = encode(
        rng.standard_normal(spec.weight_shape()) / math.sqrt(spec.c_per_group * math.prod(spec.filter)), spec.dtype
    )
    store_type, poison = POISON[spec.dtype]
    y = np.full(spec.output_shape(), poison, store_type)
    extra, bias, residual64 = epilogue_args(spec, rng)
    want = expected(spec, x64, w64, bias, residual64)
    return NumericCheck([x, w, y, *extra], grid(spec), {2: want}, lambda v: decode(v, spec.dtype))
