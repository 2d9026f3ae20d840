"""Input addresses of the im2col matrix, for the implicit-GEMM families'
tile.gather callbacks.

conv_igemm_fwd gathers the im2col matrix as A (rows: output pixels, k:
channel and tap), conv_igemm_wgrad as B (columns: channel and tap, k:
output pixels); both ask the same question of an (output pixel, channel
and tap) pair: where in x is that input element, and is it inside the
image or in the padding. Each family computes the pixel index its own way
(fwd from the row, wgrad from its split's first row + k) and passes it
here. library/conv/cpp/gather_address.{h,cc} mirrors this op for op.

conv_igemm_fwd's fast loop asks it in two parts (stepped_offset, for
tile.gather's Gather.stepped): what is fixed for a lane (its output pixel's
first input position and its channel, and which filter taps of that pixel
fall in the padding: one bit per tap) and what is fixed for a k step (its
tap's displacement in x and its first channel: wave-uniform, scalar). The
loop then adds the two and sets the offset's PADDING_BIT from the lane's
mask: no division, no compare, no select per lane.
"""

import itertools
import math

from conv import common
from ir import types as T
from tile.gather import PADDING_BIT

# A lane's padding mask is one i32, a bit per tap; bit 31 would be its sign.
MAX_STEPPED_TAPS = 31

UNIT_BYTES = 16  # what one of tile.gather's vector loads takes


def whole_units(count, dtype):
    """Whether `count` consecutive elements of `dtype` are whole 16-byte
    units: a gather runs along them with one vector load per unit."""
    return count % (UNIT_BYTES // common.ELEM[dtype].nbytes) == 0


def output_pixel(b, c, row):
    """(n, output position list) of im2col row `row`: N x output spatial, row-major."""
    n, *o = common.unflatten(b, row, (c.n, *c.output))
    return n, o


def input_address(b, c, group, n, o, col):
    """(element index in x, i1 validity) of output pixel (n, o) and im2col
    column `col` of `group` (tap-major, channel fastest, in NHWC;
    channel-major in NCHW); false in the padding."""
    taps, cpg = math.prod(c.filter), c.c_per_group
    if c.channels_last:
        tap, ch = b.udiv(col, cpg), b.urem(col, cpg)
    else:
        ch, tap = b.udiv(col, taps), b.urem(col, taps)
    t = common.unflatten(b, tap, c.filter)
    pos, valid = [], None
    for oi, ti, size, stride, pad, dil in zip(o, t, c.spatial, c.stride, c.pad, c.dilation):
        x = b.add(b.mul(oi, stride), b.sub(b.mul(ti, dil), pad))
        ok = b.and_(b.cmp("ge", x, 0), b.cmp("lt", x, size))
        valid = ok if valid is None else b.and_(valid, ok)
        pos.append(x)
    channel = b.add(b.mul(group, cpg), ch)
    return common.layout_index(b, c, n, pos, channel, c.input_shape()), valid


def stepped(c, block_k):
    """Whether the im2col matrix can be gathered by stepped_offset with k
    steps of `block_k`: channels last in whole units, every k step inside
    one filter tap (C/groups a multiple of it), at most MAX_STEPPED_TAPS taps."""
    return (
        c.channels_last
        and whole_units(c.c_per_group, c.dtype)
        and c.c_per_group % block_k == 0
        and math.prod(c.filter) <= MAX_STEPPED_TAPS
    )


def padded_dims(c):
    """The spatial dims in which some tap of some output position falls in the padding."""
    return [
        d
        for d, (out, size, stride, pad, dil, f) in enumerate(
            zip(c.output, c.spatial, c.stride, c.pad, c.dilation, c.filter)
        )
        if pad > 0 or (out - 1) * stride + (f - 1) * dil - pad >= size
    ]


def floor_div(b, x, d, bound):
    """x // d of an IR value 0 <= x < bound: a shift where d is a power of
    two, else a multiply by d's reciprocal rounded up, m = ceil(2^s / d), and
    a shift, with the least s that is exact below bound (e = m x d - 2^s,
    e x (bound - 1) < 2^s) and keeps x x m an i32; else a division. A k
    step's division by a constant is 4-5 scalar instructions; this is 1-2."""
    if d & (d - 1) == 0:
        return b.shr(x, d.bit_length() - 1)
    for s in range(1, 31):
        m = -(-(1 << s) // d)
        if (m * d - (1 << s)) * (bound - 1) < 1 << s and (bound - 1) * m < 2**31:
            return b.shr(b.mul(x, m), s)
    return b.udiv(x, d)


def stepped_offset(b, c, group, row, k0, k):
    """Byte offset in x (NHWC, stepped(c, ...)) of im2col unit (row, k0 + k)
    of `group`, with PADDING_BIT set where it is padding. k0 is a k step's
    first column (wave-uniform, a multiple of the step: one tap), k the
    lane's column inside the step. k0 = tap x C/g + channel, so its
    displacement is k0 plus, per filter dim d of tap coordinate t_d,
    t_d x (dilation x d's input stride - d's stride in k); that is 0 for
    the innermost dim without dilation or groups, whose t_d is then never
    computed."""
    cpg, elem, taps = c.c_per_group, common.ELEM[c.dtype], math.prod(c.filter)
    n, o = output_pixel(b, c, row)
    first = [b.sub(b.mul(oi, stride), pad) for oi, stride, pad in zip(o, c.stride, c.pad)]
    shape, dims = c.input_shape(), padded_dims(c)
    lane = common.layout_index(b, c, n, first, b.add(b.mul(group, cpg), k), shape)
    moves = []  # (dim, taps inside one of its coordinates, coefficient)
    for d, (f, dil) in enumerate(zip(c.filter, c.dilation)):
        inner = math.prod(c.filter[d + 1 :])
        coef = dil * math.prod(shape[d + 2 :]) - cpg * inner
        if f > 1 and coef != 0:
            moves.append((d, inner, coef))
    tap = floor_div(b, k0, cpg, cpg * taps) if moves or dims else None
    step = k0
    for d, inner, coef in moves:
        t = floor_div(b, tap, inner, taps)
        if d > 0:
            t = b.sub(t, b.mul(floor_div(b, t, c.filter[d], -(-taps // inner)), c.filter[d]))
        step = b.add(step, b.mul(t, coef))
    offset = b.add(b.mul(lane, elem.nbytes), b.mul(step, elem.nbytes))
    if not dims:
        return offset
    bit = b.and_(b.shr(padding_mask(b, c, first, dims, c.filter), tap), 1)
    return b.or_(offset, b.shl(bit, PADDING_BIT))


def padding_mask(b, c, first, dims, extents):
    """A lane's i32 with bit t set where tap t over the filter `extents`
    (row-major) of its pixel (first input position `first`) falls in the
    padding of one of `dims`: every tap (c.filter), or every filter row
    (c.filter[:-1], row_runs)."""
    outside, mask = {}, None
    for tap, ts in enumerate(itertools.product(*(range(f) for f in extents))):
        out = None
        for d in dims:
            if (d, ts[d]) not in outside:
                x = b.add(first[d], ts[d] * c.dilation[d])
                outside[d, ts[d]] = b.or_(b.cmp("lt", x, 0), b.cmp("ge", x, c.spatial[d]))
            out = outside[d, ts[d]] if out is None else b.or_(out, outside[d, ts[d]])
        bit = b.select(out, b.const(1 << tap, T.I32), b.const(0, T.I32))
        mask = bit if mask is None else b.or_(mask, bit)
    return mask
