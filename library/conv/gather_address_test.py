"""gather_address against numpy: every (im2col row, column) pair of small
convolutions, run in the reference interpreter, gives the input element
numpy's index arithmetic gives (or padding where numpy says the tap falls
outside the image); whole_units against the 16-byte unit's arithmetic."""

import math

import numpy as np
import pytest

from conv import gather_address
from conv.spec import ConvSpec
from interp.interp import run
from ir import types as T
from ir.builder import KernelBuilder

LANES = 64
PADDING = -1  # what the kernel stores for a padding element (no real index is negative)


def _kernel(c, group):
    """Lane (row, column) stores input_address's index, or PADDING where it is not valid."""
    b = KernelBuilder("gather_address", arch="gfx942", workgroup_size=(LANES, 1, 1))
    out = b.arg("out", T.GLOBAL)
    rows = c.n * math.prod(c.output)
    cols = c.c_per_group * math.prod(c.filter)
    row = b.add(b.mul(b.block_id(0), LANES), b.thread_id(0))
    col = b.block_id(1)
    with b.if_(b.cmp("lt", row, rows)):
        n, o = gather_address.output_pixel(b, c, row)
        index, valid = gather_address.input_address(b, c, b.const(group, T.I32), n, o, col)
        b.store(b.offset(out, b.mul(b.add(b.mul(row, cols), col), 4)), b.select(valid, index, PADDING))
    return b.finish(), (-(-rows // LANES), cols), np.zeros((rows, cols), np.int32)


def _numpy(c, group):
    """The same table from numpy's multi-index arithmetic, one pair at a time."""
    taps = math.prod(c.filter)
    cols = c.c_per_group * taps
    want = np.empty((c.n * math.prod(c.output), cols), np.int32)
    for row in range(want.shape[0]):
        n, *o = np.unravel_index(row, (c.n, *c.output))
        for col in range(cols):
            tap, ch = divmod(col, c.c_per_group) if c.channels_last else divmod(col, taps)[::-1]
            t = np.unravel_index(tap, c.filter)
            pos = [oi * s + ti * d - p for oi, ti, s, d, p in zip(o, t, c.stride, c.dilation, c.pad)]
            if not all(0 <= x < size for x, size in zip(pos, c.spatial)):
                want[row, col] = PADDING
                continue
            channel = group * c.c_per_group + ch
            dims = (n, *pos, channel) if c.channels_last else (n, channel, *pos)
            want[row, col] = np.ravel_multi_index(dims, c.input_shape())
    return want


SPECS = {
    "nhwc_3x3_pad": ConvSpec(2, 4, 4, (5, 6), (3, 3), pad=(1, 1)),
    "nchw_strided_dilated_groups": ConvSpec(
        1, 6, 4, (7, 5), (2, 3), stride=(2, 1), pad=(1, 2), dilation=(1, 2), groups=2, layout="NCHW"
    ),
    "nhwc_3d_groups": ConvSpec(
        1, 4, 2, (3, 4, 3), (2, 1, 2), stride=(1, 2, 1), pad=(1, 0, 1), dilation=(2, 1, 1), groups=2
    ),
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_pair_addresses_numpys_element(name):
    c = SPECS[name]
    for group in range(c.groups):
        kernel, grid, out = _kernel(c, group)
        run(kernel, grid, [out])
        want = _numpy(c, group)
        assert (want == PADDING).any() and (want != PADDING).any(), "a case should hold both padding and image elements"
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize(
    "count, dtype, whole",
    [(8, "f16", True), (16, "bf16", True), (4, "f16", False), (12, "bf16", False), (4, "f32", True), (6, "f32", False)],
)
def test_whole_units_are_multiples_of_the_unit(count, dtype, whole):
    assert gather_address.whole_units(count, dtype) is whole
