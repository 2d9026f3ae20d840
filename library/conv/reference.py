"""numpy references for the gradients of a convolution, in float64.

Both are written straight from their definitions, as scatters over the
filter taps, and share no code with the forward reference
(common.reference, a gather) or with any kernel: reference_test.py ties the
three together through the adjoint identity

    <conv(x, w), dy> = <x, dgrad(dy, w)> = <w, wgrad(x, dy)>

so a wrong index in any one of them fails it. Arrays use the spec's layout
(channels last or first); bias and relu are not part of a gradient.
"""

import numpy as np


def _channels_first(spec, a):
    return np.moveaxis(a, -1, 1) if spec.channels_last else a


def _spec_layout(spec, a):
    return np.moveaxis(a, 1, -1) if spec.channels_last else a


def _windows(spec):
    """Per filter tap: the padded-input slices that output pixels read through it."""
    for taps in np.ndindex(*spec.filter):
        window = tuple(
            slice(t * d, t * d + s * (o - 1) + 1, s)
            for t, d, s, o in zip(taps, spec.dilation, spec.stride, spec.output)
        )
        yield taps, window


def _unpad(spec, padded):
    return padded[(slice(None), slice(None)) + tuple(slice(p, p + size) for p, size in zip(spec.pad, spec.spatial))]


def dgrad(spec, dy, w):
    """dx[n, c, i] = sum over k and taps of dy[n, k, o] w[k, c, tap] where i = o*stride + tap*dilation - pad."""
    dy, w = _channels_first(spec, dy), _channels_first(spec, w)
    cpg, kpg = spec.c_per_group, spec.k_per_group
    padded = np.zeros((spec.n, spec.c, *(size + 2 * p for size, p in zip(spec.spatial, spec.pad))))
    for taps, window in _windows(spec):
        for g in range(spec.groups):
            dys = dy[:, g * kpg : (g + 1) * kpg]
            ws = w[(slice(g * kpg, (g + 1) * kpg), slice(None)) + taps]  # kpg, cpg
            padded[(slice(None), slice(g * cpg, (g + 1) * cpg)) + window] += np.einsum("nk...,kc->nc...", dys, ws)
    return _spec_layout(spec, _unpad(spec, padded))


def wgrad(spec, x, dy):
    """dw[k, c, tap] = sum over n and output pixels o of dy[n, k, o] x[n, c, o*stride + tap*dilation - pad]."""
    x, dy = _channels_first(spec, x), _channels_first(spec, dy)
    cpg, kpg = spec.c_per_group, spec.k_per_group
    x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in spec.pad])
    dw = np.zeros((spec.k, cpg, *spec.filter))
    for taps, window in _windows(spec):
        patch = x[(slice(None), slice(None)) + window]
        for g in range(spec.groups):
            dys = dy[:, g * kpg : (g + 1) * kpg].reshape(spec.n, kpg, -1)
            xs = patch[:, g * cpg : (g + 1) * cpg].reshape(spec.n, cpg, -1)
            dw[(slice(g * kpg, (g + 1) * kpg), slice(None)) + taps] = np.einsum("nkp,ncp->kc", dys, xs)
    return _spec_layout(spec, dw)
