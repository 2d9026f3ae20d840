"""bound.py: the spacing of each output type, gamma_n, the per-element
bound: wide enough for every correct f32 accumulation rounded to the output
type, narrow enough that one element a few ulps off fails; and the decoding
of each output type's storage."""

import numpy as np
import pytest

from family.bound import Expected, decode, decode_stored, expected, gamma, ulp, within


def _bf16_round(x):
    """float64 -> the nearest bf16 value (ties to even), as float64."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


# float32 -> the nearest value of each output type, as float64.
ROUND = {
    "f16": lambda v: v.astype(np.float16).astype(np.float64),
    "bf16": _bf16_round,
    "f32": lambda v: v.astype(np.float64),
}

# Values across the range: zero, subnormals, around 1, large.
VALUES = np.array([0.0, 2.0**-140, 2.0**-126, 2.0**-20, 2.0**-15, 2.0**-14, 1e-3, 0.3, 0.5, 1.0, 1.5, 1000.0, 60000.0])


@pytest.mark.parametrize("dtype,np_type", [("f16", np.float16), ("f32", np.float32)])
def test_ulp_is_numpys_spacing(dtype, np_type):
    # Values of the type itself; the spacing at |x| (numpy's f16 spacing of a negative
    # power of two is the gap toward zero).
    values = VALUES.astype(np_type)
    np.testing.assert_array_equal(ulp(values.astype(np.float64), dtype), np.spacing(values).astype(np.float64))
    np.testing.assert_array_equal(ulp(-values.astype(np.float64), dtype), np.spacing(values).astype(np.float64))


def test_bf16_ulp_is_the_gap_to_the_next_bf16_value():
    values = _bf16_round(VALUES[VALUES < 3e38])
    bits = values.astype(np.float32).view(np.uint32)
    following = ((bits >> 16) + 1).astype(np.uint32) << 16
    gap = following.view(np.float32).astype(np.float64) - values
    np.testing.assert_array_equal(ulp(values, "bf16"), gap)


def test_gamma():
    assert gamma(1) == 2.0**-24 / (1 - 2.0**-24)
    assert gamma(4096) == pytest.approx(4096 * 2.0**-24, rel=1e-3)
    with pytest.raises(ValueError, match=r"gamma: expected a reduction of fewer than 2\*\*24 terms, got 16777216"):
        gamma(2**24)


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32"])
@pytest.mark.parametrize("n", [1, 9, 576, 4096])
def test_every_f32_accumulation_rounded_to_the_output_type_is_within(dtype, n):
    # Dot products of f16 inputs summed in f32 in two orders (left to right, and pairwise
    # as numpy does), then rounded to the output type: each within its element's bound.
    rng = np.random.default_rng(n)
    a = rng.standard_normal((256, n)).astype(np.float16).astype(np.float64)
    b = (rng.standard_normal((256, n)) * 10.0 ** rng.integers(-3, 3, (256, 1))).astype(np.float16).astype(np.float64)
    want = expected(lambda x, y: (x * y).sum(axis=1), (a, b), n, dtype)
    products = (a * b).astype(np.float32)  # exact: an f16 product fits f32
    sequential = np.zeros(256, np.float32)
    for i in range(n):
        sequential = sequential + products[:, i]
    for f32_sum in (sequential, products.sum(axis=1, dtype=np.float32)):
        assert not want.misses(ROUND[dtype](f32_sum)).any()


def test_one_f16_element_four_ulps_off_fails_on_a_small_output():
    # 64 outputs near 0.3: 4 ulps there are 9.8e-4, under an absolute tolerance of 1e-3.
    values = np.linspace(0.26, 0.49, 64).astype(np.float16).astype(np.float64)
    want = Expected(values, np.abs(values), 9, "f16")
    got = values.copy()
    got[5] += 4 * np.spacing(np.float16(values[5]))
    assert np.allclose(got, values, rtol=2.0**-10, atol=1e-3)  # one absolute tolerance for all passes it
    assert want.misses(got).tolist() == [i == 5 for i in range(64)]
    worst = r"the worst, at \(5,\), got 0\.2[0-9]+, expected 0\.2[0-9]+ within 0\.000122 \(a sum of 9 terms"
    with pytest.raises(AssertionError, match=rf"^out: 1 of 64 elements outside the bound; {worst}"):
        want.check(got, "out")
    want.check(values, "out")  # the reference itself passes


def test_the_bound_grows_with_the_terms_magnitudes_and_length():
    # A sum that cancels to 0.001 from terms of size 100: f32 may lose far more than an ulp of the result.
    want = Expected(np.array([0.001]), np.array([100.0 * 4096]), 4096, "f16")
    assert want.bound()[0] > 4096 * 2.0**-24 * 100 * 4096 > 1e-3
    assert Expected(np.array([0.001]), np.array([0.001]), 1, "f16").bound()[0] < 1e-6


def test_unwritten_elements_fail_and_the_inputs_are_checked():
    want = Expected(np.zeros(4), np.zeros(4), 1, "f32")
    assert want.misses(np.array([0.0, np.nan, 0.0, np.inf])).tolist() == [False, True, False, True]
    with pytest.raises(ValueError, match=r"Expected.dtype: expected one of f32, f16, bf16, got 'f64'"):
        Expected(np.zeros(1), np.zeros(1), 1, "f64")
    with pytest.raises(ValueError, match=r"Expected: expected values and magnitudes of one shape, got \(1,\) and \(2,"):
        Expected(np.zeros(1), np.zeros(2), 1, "f16")


def test_expected_takes_the_magnitudes_from_the_reference_over_absolute_values():
    a, b = np.array([[1.0, -2.0]]), np.array([[3.0], [4.0]])
    bias = np.array([-1.0])
    want = expected(lambda x, y, c: np.maximum(x @ y + c, 0), (a, b, bias), 3, "f16")
    assert want.values.tolist() == [[0.0]] and want.magnitudes.tolist() == [[12.0]]  # max(3 - 8 - 1, 0); 3 + 8 + 1
    unbiased = expected(lambda x, y, c: x @ y + (0 if c is None else c), (a, b, None), 2, "f32")
    assert unbiased.magnitudes.tolist() == [[11.0]]


def test_decode_reads_each_output_type():
    assert decode(np.array([0x3F80], np.uint16), "bf16").tolist() == [1.0]
    assert decode(np.array([0.5], np.float16), "f16").tolist() == [0.5]
    assert decode(np.array([2.25], np.float32), "f32").tolist() == [2.25]


def test_within_bounds_each_element_by_its_own_error_plus_the_rounding():
    want = within(np.array([1.0, 1.0]), np.array([0.0, 0.01]), "f16")
    assert want.bound()[0] == ulp(1.0, "f16") / 2  # no error of its own: the rounding alone
    assert want.bound()[1] == pytest.approx(0.01 + ulp(1.01, "f16") / 2)
    assert want.misses(np.array([1.0 + ulp(1.0, "f16"), 1.0104])).tolist() == [True, False]


def test_decode_stored_decodes_by_how_an_output_is_stored():
    bits = np.array([0x3F80, 0xC000], np.uint16)  # bf16 1.0 and -2.0
    assert decode_stored(bits).tolist() == [1.0, -2.0]
    assert decode_stored(np.array([1.5], np.float16)).tolist() == [1.5]
    assert decode_stored(np.array([0.1], np.float32)).tolist() == [float(np.float32(0.1))]
    with pytest.raises(
        ValueError, match=r"decode_stored: expected an output stored as one of float32, float16, uint16, got float64"
    ):
        decode_stored(np.zeros(1))
