"""The proof GEMM, run by the interpreter on odd shapes, against numpy."""

import numpy as np
import pytest

from interp.interp import run
from interp.numerics import round_bf16
from tile.gemm_example import gemm_kernel

# (rtol, atol): the output is rounded to the input type once; f32 accumulation
# order differs from numpy's but stays far below that rounding.
TOLERANCE = {"f16": (2.0**-10, 1e-3), "bf16": (2.0**-7, 1e-2)}
ARCHS = ["gfx942", "gfx950", "gfx1100", "gfx1201", "gfx1250"]
SHAPES = [(37, 45, 29), (1, 70, 3), (64, 32, 48)]


def as_device(x, dtype):
    """numpy data as the kernel's input type, and those values as float64."""
    if dtype == "f16":
        h = x.astype(np.float16)
        return h, h.astype(np.float64)
    r = round_bf16(x.astype(np.float32))
    return (r.view(np.uint32) >> 16).astype(np.uint16), r.astype(np.float64)


def from_device(c, dtype):
    if dtype == "f16":
        return c.astype(np.float64)
    return (c.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_gemm_matches_numpy(arch, dtype, m, n, k):
    kernel, grid = gemm_kernel(arch, dtype)
    rng = np.random.default_rng(m * 10000 + n * 100 + k)
    a, a64 = as_device(rng.standard_normal((m, k)), dtype)
    b, b64 = as_device(rng.standard_normal((k, n)), dtype)
    c = np.zeros((m, n), a.dtype)
    run(kernel, grid(m, n), [a, b, c, m, n, k])
    rtol, atol = TOLERANCE[dtype]
    np.testing.assert_allclose(from_device(c, dtype), a64 @ b64, rtol=rtol, atol=atol)


def test_a_wrong_layout_would_be_caught():
    # The check above can fail: corrupting one input element moves the result.
    kernel, grid = gemm_kernel("gfx942", "f16")
    a = np.ones((16, 16), np.float16)
    b = np.eye(16, dtype=np.float16)
    c = np.zeros((16, 16), np.float16)
    a[3, 5] = 7
    run(kernel, grid(16, 16), [a, b, c, 16, 16, 16])
    assert c[3, 5] == 7 and c[5, 3] == 1
