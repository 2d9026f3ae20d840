"""The gradient references against the forward one, through the adjoint
identity <conv(x, w), dy> = <x, dgrad(dy, w)> = <w, wgrad(x, dy)>, and on
hand-computed cases."""

import dataclasses

import numpy as np
import pytest

from conv import common, reference
from conv.cases import DIRECT, IMG2COL
from conv.spec import ConvSpec

# Every direct and img2col case spec (groups, depthwise, NCHW, 3-D, dilation),
# plus the shapes where a gradient is easy to get wrong: stride larger than
# the filter (input pixels no tap reaches), stride with padding and dilation,
# and a filter as large as the padded input.
SPECS = (
    {f"direct_{k}": v for k, v in DIRECT.items()}
    | {f"img2col_{k}": v for k, v in IMG2COL.items()}
    | {
        "stride3_1x1": ConvSpec(2, 4, 6, (7, 8), (1, 1), stride=(3, 3)),
        "stride2_pad_dilate_nchw": ConvSpec(
            1, 3, 5, (9, 10), (3, 2), stride=(2, 3), pad=(2, 1), dilation=(2, 1), layout="NCHW"
        ),
        "filter_covers_input": ConvSpec(1, 2, 3, (4, 5), (6, 7), pad=(1, 1)),
        "3d_stride2_groups": ConvSpec(1, 4, 6, (5, 6, 7), (3, 3, 3), stride=(2, 2, 2), pad=(1, 0, 1), groups=2),
    }
)


def _plain(spec):
    """The spec without its epilogue: the gradients are of the linear convolution."""
    return dataclasses.replace(spec, bias=False, activation="none", residual="none", scale="1")


@pytest.mark.parametrize("name", sorted(SPECS))
def test_adjoint_identity(name):
    spec = _plain(SPECS[name])
    rng = np.random.default_rng(7)
    x = rng.standard_normal(spec.input_shape())
    w = rng.standard_normal(spec.weight_shape())
    dy = rng.standard_normal(spec.output_shape())
    forward = np.vdot(common.reference(spec, x, w, None), dy)
    assert reference.dgrad(spec, dy, w).shape == spec.input_shape()
    assert reference.wgrad(spec, x, dy).shape == spec.weight_shape()
    np.testing.assert_allclose(np.vdot(x, reference.dgrad(spec, dy, w)), forward, rtol=1e-10)
    np.testing.assert_allclose(np.vdot(w, reference.wgrad(spec, x, dy)), forward, rtol=1e-10)


def test_dgrad_by_hand():
    # One channel, a 2x2 filter of ones, stride 2, no padding, on a 4x4 input:
    # each output pixel's gradient lands on its own 2x2 block, untouched by others.
    spec = ConvSpec(1, 1, 1, (4, 4), (2, 2), stride=(2, 2), layout="NCHW", dtype="f32")
    dy = np.array([[[[1.0, 2.0], [3.0, 4.0]]]])
    dx = reference.dgrad(spec, dy, np.ones(spec.weight_shape()))
    expected = np.kron(np.array([[1.0, 2.0], [3.0, 4.0]]), np.ones((2, 2)))
    np.testing.assert_array_equal(dx[0, 0], expected)


def test_wgrad_by_hand():
    # A 1x1 filter: dw[k, c] is the sum over pixels of dy[k] * x[c].
    spec = ConvSpec(1, 2, 1, (2, 2), (1, 1), layout="NCHW", dtype="f32")
    x = np.array([[[[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.0], [0.0, -1.0]]]])
    dy = np.array([[[[1.0, 1.0], [1.0, 2.0]]]])
    dw = reference.wgrad(spec, x, dy)
    np.testing.assert_array_equal(dw[:, :, 0, 0], [[1 + 2 + 3 + 8, 0.5 - 2.0]])
