"""conv_igemm_fwd's row runs: the im2col matrix of a small-C layer by vector loads.

With few channels (ResNet's stem: C = 3, a 7x7 filter) a tap is not a
16-byte unit, and the im2col gather goes element by element. But in NHWC
the X x C elements of one filter row (21 halves for 7x7x3) are one
contiguous run of the input row. IgemmSpec(row_runs=True) reorders the
reduction by filter rows (every filter dim but the last, row-major): row r
owns k in [r x block_k, r x block_k + X x C), its run, and the rest of its
block_k are zero weights. One k step is one filter row, so the gather is
stepped (tile.gather.Gather.stepped) as gather_address.stepped_offset is
with a tap per step: a lane's offset is its run's start plus its place in
the run, fixed over the loop; a step adds the row's displacement; a row in
the padding (of an outer dim) gets PADDING_BIT from the lane's mask of
padded rows. What is padding inside a run (left or right of the image)
and past its X x C elements is zeroed by the lane's patch mask
(Gather.patch), which is fixed over the loop too. The weights are gathered
the same way, each filter row's X x C weights then zeros.

The buffer's range check keeps or zeros whole dwords, and a run starts at
any element: a dword that begins inside a tensor and ends past it would
lose the tensor's last element. So no unit reads past its run: the run's
last unit is loaded end-aligned (it starts at X x C - 8 and its elements
the one before already holds are masked; place). No filter row's run
ends past w. A run of x ends past x only on the last input line with
padding right of the image: fast_to sends those blocks (the last image's
last output lines) through the guarded loop; fast_from sends the blocks
whose runs start before x (left padding on the first lines), where a
buffer offset would wrap.

Allowed (refusal says why not): NHWC, one group, no dilation in the last
dim, X x C from one unit (8) to block_k, at most MAX_ROWS filter rows, no
split-K.
library/conv/cpp/row_runs.{h,cc} mirrors this op for op.
"""

import math

from conv import common, gather_address
from ir import types as T
from tile.gather import PADDING_BIT, Gather

# A lane's mask of padded rows is one i32, a bit per row; bit 31 would be its sign.
MAX_ROWS = 31


def piece(c):
    """The run of one filter row: X x C elements."""
    return c.filter[-1] * c.c


def rows(c):
    """Filter rows: every filter dim but the last."""
    return math.prod(c.filter[:-1])


def refusal(c, block_k):
    """Why `c` cannot be gathered by row runs with k steps of `block_k` (None: it can)."""
    if not c.channels_last:
        return f"channels last (NHWC), got layout {c.layout!r}"
    if c.groups != 1:
        return f"one group (a run holds every channel), got {c.groups}"
    if c.dilation[-1] != 1:
        return f"no dilation in the last dim (a run is contiguous), got {c.dilation[-1]}"
    if piece(c) < _unit_elems(c):
        return f"a filter row of at least {_unit_elems(c)} elements (one 16-byte unit), got {piece(c)} (X {c.filter[-1]} x C {c.c})"
    if piece(c) > block_k:
        return f"a filter row of at most {block_k} elements (the k step), got {piece(c)} (X {c.filter[-1]} x C {c.c})"
    if rows(c) > MAX_ROWS:
        return f"at most {MAX_ROWS} filter rows, got {rows(c)}"
    return None


def fast_from(c):
    """The first im2col row whose runs all start at or after x's first
    element: 0 without padding in the last dim; else the first output
    position of the outermost dim whose first valid input line lies at
    least pad elements into the image, times that dim's output pixels."""
    pad, inner = c.pad[-1], math.prod(c.spatial[1:])
    if pad == 0:
        return 0
    first = next((o for o in range(c.output[0]) if max(0, o * c.stride[0] - c.pad[0]) * inner >= pad), c.output[0])
    return first * math.prod(c.output[1:])


def fast_to(c):
    """The first im2col row of the last image's output lines (of the
    outermost dim) whose filter rows reach x's last input line, where a run
    padded right of the image ends past x; 0 (no limit) without such runs."""
    if (c.output[-1] - 1) * c.stride[-1] - c.pad[-1] + c.filter[-1] - 1 < c.spatial[-1]:
        return 0
    reach = (c.filter[0] - 1) * c.dilation[0] - c.pad[0]
    first = next((o for o in range(c.output[0]) if o * c.stride[0] + reach >= c.spatial[0] - 1), None)
    return 0 if first is None else (c.n - 1) * math.prod(c.output) + first * math.prod(c.output[1:])


def place(b, c, j):
    """The run position that k position `j` of a filter row holds: j, but
    in the run's last unit (and the junk ones after it) j - shift, so that
    the last unit ends with the run (shift = what it would read past it)."""
    last, shift = _last_unit(c)
    if shift == 0:
        return j
    return b.sub(j, b.select(b.cmp("ge", j, last), b.const(shift, T.I32), b.const(0, T.I32)))


def _last_unit(c):
    """(first k position of the run's last unit, the elements it would read past the run)."""
    unit, run = _unit_elems(c), piece(c)
    last = (run - 1) // unit * unit
    return last, last + unit - run


def _in_run(b, c, q, start):
    """Whether run position q (of a unit whose k positions start at `start`) is the unit's to add: inside the
    run, and not before `start` (an end-aligned unit's first elements are the previous unit's)."""
    return b.and_(b.cmp("ge", q, start), b.cmp("lt", q, piece(c)))


def _needs_patch(c, block_k):
    return piece(c) < block_k or len(c.spatial) - 1 in gather_address.padded_dims(c)


def _words(b, valid):
    """The i32 words of a unit of 16-bit elements whose element e is kept where valid[e] is true."""
    words = []
    for lo, hi in zip(valid[::2], valid[1::2]):
        low = b.select(lo, b.const(0xFFFF, T.I32), b.const(0, T.I32))
        high = b.select(hi, b.const(-0x10000, T.I32), b.const(0, T.I32))
        words.append(b.or_(low, high))
    return b.build(words)


def _unit_elems(c):
    return gather_address.UNIT_BYTES // common.ELEM[c.dtype].nbytes


def im2col(spec, group):
    """The im2col matrix (A) as a stepped, patched tile.gather.Gather over x."""
    c, step = spec.conv, spec.tile.block_k
    run = piece(c)
    shape = c.input_shape()
    nbytes = common.ELEM[c.dtype].nbytes

    def address(b, row, k):
        n, o = gather_address.output_pixel(b, c, row)
        r, j = b.udiv(k, step), b.urem(k, step)
        q = place(b, c, j)
        index, valid = gather_address.input_address(b, c, group, n, o, b.add(b.mul(r, run), q))
        return index, b.and_(valid, _in_run(b, c, q, b.sub(j, b.urem(j, _unit_elems(c)))))

    def first(b, row):
        n, o = gather_address.output_pixel(b, c, row)
        return n, [b.sub(b.mul(oi, s), p) for oi, s, p in zip(o, c.stride, c.pad)]

    def stepped(b, row, k0, k):
        n, pos = first(b, row)
        lane = common.layout_index(b, c, n, pos, place(b, c, k), shape)
        r = gather_address.floor_div(b, k0, step, step * rows(c))
        coords = common.unflatten(b, r, c.filter[:-1]) if len(c.filter) > 2 else [r]
        displacement = None
        for d, t in enumerate(coords):
            move = b.mul(t, c.dilation[d] * math.prod(shape[d + 2 :]))
            displacement = move if displacement is None else b.add(displacement, move)
        offset = b.mul(b.add(lane, displacement), nbytes)
        dims = [d for d in gather_address.padded_dims(c) if d < len(c.spatial) - 1]
        if not dims:
            return offset
        bit = b.and_(b.shr(gather_address.padding_mask(b, c, pos, dims, c.filter[:-1]), r), 1)
        return b.or_(offset, b.shl(bit, PADDING_BIT))

    def patch(b, row, k):
        _, pos = first(b, row)
        at = b.mul(pos[-1], c.c)  # the run's first element in its input line
        start = place(b, c, k)
        valid = []
        for e in range(_unit_elems(c)):
            q = b.add(start, e)
            x = b.add(at, q)
            inside = b.and_(b.cmp("ge", x, 0), b.cmp("lt", x, c.spatial[-1] * c.c))
            valid.append(b.and_(inside, _in_run(b, c, q, k)))
        return _words(b, valid)

    return Gather(
        address,
        runs=True,
        stepped=stepped,
        extent=math.prod(shape) * nbytes,
        patch=patch if _needs_patch(c, step) else None,
        fast_from=fast_from(c),
        fast_to=fast_to(c),
    )


def weights(spec):
    """B, the filters, each filter row's X x C weights then zeros to block_k, as a stepped Gather."""
    c, step = spec.conv, spec.tile.block_k
    run, length = piece(c), rows(c) * piece(c)
    nbytes = common.ELEM[c.dtype].nbytes

    def address(b, row, kk):
        r, j = b.udiv(kk, step), b.urem(kk, step)
        q = place(b, c, j)
        return b.add(b.add(b.mul(row, length), b.mul(r, run)), q), _in_run(b, c, q, b.sub(j, b.urem(j, _unit_elems(c))))

    def stepped(b, row, k0, kk):
        r = gather_address.floor_div(b, k0, step, step * rows(c))
        return b.mul(b.add(b.add(b.mul(row, length), place(b, c, kk)), b.mul(r, run)), nbytes)

    def patch(b, row, kk):
        start = place(b, c, kk)
        return _words(b, [_in_run(b, c, b.add(start, e), kk) for e in range(_unit_elems(c))])

    # The buffer ends with the weights: the last filter's last row reads zeros past them.
    return Gather(
        address,
        runs=True,
        stepped=stepped,
        extent=c.k * length * nbytes,
        patch=patch if run < step else None,
    )
