"""How far a kernel's output may be from its float64 reference: one bound per
element, the one home of the numeric gates' tolerance.

Every family's output element is a reduction of n terms (products a_i b_i,
plus a bias where there is one) accumulated in f32, then rounded once to the
output type. The reference gives the exact value y = sum t_i of the encoded
inputs (float64 holds every product of two f16, bf16, fp8 or f32 values
exactly, and the sums of a gate's small problems to far below f32's error),
and the same reduction over absolute values gives m = sum |t_i|. Any order
of f32 additions and multiplications (a tree, split-K slices summed later,
fused multiply-adds) computes y with an error of at most

    gamma_n * m,  gamma_n = n u / (1 - n u),  u = 2**-24 (f32's unit roundoff)

(Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section
3.1, eq. 3.5). Rounding that to the output type adds at most half an ulp of
the output type at the value rounded, whose magnitude is at most |y| plus
that error. So an element passes when

    |got - y| <= gamma_n * m + ulp_out(|y| + gamma_n * m) / 2

A relu after the bias moves no element farther from the reference (it is
1-Lipschitz), so the bound holds through it. The other epilogues (finished)
carry the error through: an activation multiplies it by its Lipschitz
constant and adds its own f32 evaluation error; a residual added after it
and the output scale each add one f32 rounding. Unlike one absolute tolerance
for every element, this scales with each element's own terms and value: a
single f16 element a few ulps off fails however small the output is, and a
long reduction of large terms gets the room its rounding needs.
"""

import dataclasses
import math

import numpy as np

# Type -> (p, emin): significand bits with the implicit one, and the least
# normal exponent; below 2**emin the spacing stays 2**(emin - p + 1).
FORMATS = {"f32": (24, -126), "f16": (11, -14), "bf16": (8, -126)}
ACCUMULATOR = "f32"  # every family accumulates in f32


def ulp(x, dtype):
    """The spacing of `dtype`'s values at magnitude |x| (elementwise, float64)."""
    p, emin = FORMATS[dtype]
    x = np.abs(np.asarray(x, np.float64))
    _, e = np.frexp(x)  # x = f * 2**e with f in [0.5, 1): the leading bit is 2**(e - 1)
    lead = np.where(x > 0, e - 1, emin)
    return np.ldexp(1.0, np.maximum(lead, emin) - (p - 1))


def decode(raw, dtype):
    """An output's float64 values from how a kernel stores `dtype`: bf16 as
    its uint16 bits, f16 and f32 as numpy's float16 and float32."""
    raw = np.asarray(raw)
    if dtype == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return raw.astype(np.float64)


# How a kernel's output is stored -> its type: f32 and f16 as numpy's, bf16 as its uint16 bits.
STORED = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16", np.dtype(np.uint16): "bf16"}


def decode_stored(raw):
    """decode() of an output by how it is stored (STORED): for a check whose outputs differ in type."""
    raw = np.asarray(raw)
    if raw.dtype not in STORED:
        raise ValueError(
            f"decode_stored: expected an output stored as one of {', '.join(map(str, STORED))}, got {raw.dtype}"
        )
    return decode(raw, STORED[raw.dtype])


def gamma(n):
    """gamma_n of the accumulator type: the relative error bound of a sum of n terms."""
    nu = n * 2.0 ** -FORMATS[ACCUMULATOR][0]
    if not 0 <= nu < 1:
        raise ValueError(f"gamma: expected a reduction of fewer than 2**24 terms, got {n}")
    return nu / (1 - nu)


@dataclasses.dataclass(frozen=True)
class Expected:
    """What one output of a kernel should hold: the float64 reference
    `values`, `magnitudes` (each element's sum of |terms|, by the same
    reference over absolute values), the reduction's `length` n (terms per
    element, the most any one element has) and the output type `dtype`."""

    values: np.ndarray
    magnitudes: np.ndarray
    length: int
    dtype: str

    def __post_init__(self):
        if self.dtype not in FORMATS:
            raise ValueError(f"Expected.dtype: expected one of {', '.join(FORMATS)}, got {self.dtype!r}")
        if np.shape(self.values) != np.shape(self.magnitudes):
            shapes = f"{np.shape(self.values)} and {np.shape(self.magnitudes)}"
            raise ValueError(f"Expected: expected values and magnitudes of one shape, got {shapes}")

    def bound(self):
        """Each element's largest allowed |got - value| (the module doc says why)."""
        accumulated = gamma(self.length) * np.asarray(self.magnitudes, np.float64)
        return accumulated + 0.5 * ulp(np.abs(self.values) + accumulated, self.dtype)

    def misses(self, got):
        """A boolean array: the elements of `got` (float64, the output's shape)
        outside the bound; NaN (an element never written) always misses."""
        got = np.asarray(got, np.float64).reshape(np.shape(self.values))
        return ~(np.abs(got - self.values) <= self.bound())

    def check(self, got, what):
        """AssertionError naming `what`, how many elements miss, and the worst
        of them (index, got, reference, bound); nothing when all are within."""
        miss = self.misses(got)
        if not miss.any():
            return
        got = np.asarray(got, np.float64).reshape(np.shape(self.values))
        bound = self.bound()
        excess = np.where(miss, np.nan_to_num(np.abs(got - self.values), nan=np.inf) / bound, -1.0)
        worst = np.unravel_index(int(np.argmax(excess)), excess.shape)
        at = tuple(int(i) for i in worst)
        raise AssertionError(
            f"{what}: {int(miss.sum())} of {miss.size} elements outside the bound; the worst, at {at}, "
            f"got {float(got[worst])!r}, expected {float(self.values[worst])!r} within {float(bound[worst]):.3g} "
            f"(a sum of {self.length} terms of magnitude {float(self.magnitudes[worst]):.3g}, rounded to {self.dtype})"
        )


def expected(reference, operands, length, dtype):
    """The Expected of `reference(*operands)`, a reference that adds products
    of its operands (and a bias; a relu after it is allowed): its magnitudes
    are the same reference over the operands' absolute values (None stays
    None). `length`: terms per output element."""
    values = reference(*operands)
    magnitudes = reference(*(None if o is None else np.abs(o) for o in operands))
    return Expected(np.asarray(values, np.float64), np.asarray(magnitudes, np.float64), length, dtype)


def within(values, errors, dtype):
    """The Expected of an output that is not one plain reduction (attention's softmax): its
    float64 reference `values` and each element's own derived f32 error bound `errors`, to which
    the bound adds the rounding to `dtype`. Stated as the Expected of a one-term reduction whose
    magnitudes make gamma_1 * magnitudes = errors."""
    return Expected(np.asarray(values, np.float64), np.asarray(errors, np.float64) / gamma(1), 1, dtype)


def _gelu_erf(x):
    return 0.5 * x * (1 + np.vectorize(math.erf, otypes=[np.float64])(np.asarray(x) / math.sqrt(2)))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * np.asarray(x) ** 3)))


# activation (tile.gemm.ACTIVATIONS) -> (its float64 definition, a Lipschitz constant, the relative
# error of its f32 evaluation in the kernel). GELU's derivative peaks at 1.1289; its evaluation is
# a few f32 roundings plus, for the erf form, the approximation's 1.5e-7 (tile.gemm.GELU_ERF_A):
# 0.5 |x| 1.5e-7 < 2**-23 |x|, so 2**-18 |x| leaves a factor of 16 for the roundings.
ACTIVATIONS = {
    "none": (lambda x: x, 1.0, 0.0),
    "relu": (lambda x: np.maximum(x, 0), 1.0, 0.0),
    "relu6": (lambda x: np.clip(x, 0, 6), 1.0, 0.0),
    "gelu_tanh": (_gelu_tanh, 1.13, 2.0**-18),
    "gelu_erf": (_gelu_erf, 1.13, 2.0**-18),
}


def finished(pre, activation="none", after=None, scale=1.0):
    """The Expected of scale * (act(pre) + after), an epilogue past a linear reduction: `pre` the
    Expected of that reduction (bias and a residual added before the activation among its terms),
    `after` (None: none) a residual added after the activation (float64, exact), `scale` the f32
    value the kernel multiplies by. `pre` itself where the epilogue adds nothing but a relu or none."""
    if after is None and scale == 1.0 and activation in ("none", "relu"):
        if activation == "none":
            return pre
        return Expected(np.maximum(pre.values, 0), pre.magnitudes, pre.length, pre.dtype)
    act, lipschitz, relative = ACTIVATIONS[activation]
    u = 2.0 ** -FORMATS[ACCUMULATOR][0]
    values = act(np.asarray(pre.values, np.float64))
    errors = lipschitz * gamma(pre.length) * np.asarray(pre.magnitudes, np.float64) + relative * np.abs(pre.values)
    if after is not None:
        values = values + after
        errors = errors + u * np.abs(values)
    if scale != 1.0:
        values = scale * values
        errors = abs(scale) * errors + u * np.abs(values)
    return within(values, errors, pre.dtype)
