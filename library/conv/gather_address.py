"""Input addresses of the im2col matrix, for the implicit-GEMM families'
tile.gather callbacks.

conv_igemm_fwd gathers the im2col matrix as A (rows: output pixels, k:
channel and tap), conv_igemm_wgrad as B (columns: channel and tap, k:
output pixels); both ask the same question of an (output pixel, channel
and tap) pair: where in x is that input element, and is it inside the
image or in the padding. Each family computes the pixel index its own way
(fwd from the row, wgrad from its split's first row + k) and passes it
here. library/conv/cpp/gather_address.{h,cc} mirrors this op for op.
"""

import math

from conv import common

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
        tap, ch = b.div(col, cpg), b.rem(col, cpg)
    else:
        ch, tap = b.div(col, taps), b.rem(col, taps)
    t = common.unflatten(b, tap, c.filter)
    pos, valid = [], None
    for oi, ti, size, stride, pad, dil in zip(o, t, c.spatial, c.stride, c.pad, c.dilation):
        x = b.add(b.mul(oi, stride), b.sub(b.mul(ti, dil), pad))
        ok = b.and_(b.cmp("ge", x, 0), b.cmp("lt", x, size))
        valid = ok if valid is None else b.and_(valid, ok)
        pos.append(x)
    channel = b.add(b.mul(group, cpg), ch)
    return common.layout_index(b, c, n, pos, channel, c.input_shape()), valid
