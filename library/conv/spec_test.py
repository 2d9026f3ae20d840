"""ConvSpec validation: every bad field is named, with the value and what is
allowed; JSON lists and numpy ints make the equal spec; and the 2^31-byte
limit on every tensor, on both sides of the boundary, computed from the
definition, naming the tensor and the largest batch that fits. (cpp/spec_test
and the spec parity tests hold the C++ engine to the same.)"""

import json
import math

import numpy as np
import pytest

from conv.cases import direct_cases, img2col_cases
from conv.spec import MAX_TENSOR_BYTES, ConvSpec, SpecError


def test_defaults_and_output_size():
    s = ConvSpec(1, 8, 4, (7, 9), (3, 3), stride=(2, 1), pad=(1, 0))
    assert s.stride == (2, 1) and s.dilation == (1, 1)
    assert s.output == (4, 7)
    assert s.input_shape() == (1, 7, 9, 8) and s.weight_shape() == (4, 3, 3, 8)
    assert ConvSpec(1, 8, 4, (7, 9), (3, 3), layout="NCHW").weight_shape() == (4, 8, 3, 3)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(n=0), "ConvSpec.n: expected a positive int, got 0"),
        (dict(spatial=(7,)), "ConvSpec.spatial: expected (H, W) or (D, H, W), got (7,)"),
        (
            dict(filter=(3, 3, 3)),
            "ConvSpec.filter: expected a tuple of 2 ints (one per spatial dimension), got (3, 3, 3)",
        ),
        (dict(stride=(0, 1)), "ConvSpec.stride: expected ints >= 1, got (0, 1)"),
        (dict(pad=(-1, 0)), "ConvSpec.pad: expected ints >= 0, got (-1, 0)"),
        (dict(groups=3), "ConvSpec.groups: expected a divisor of both c (8) and k (4), got 3"),
        (dict(layout="NWHC"), "ConvSpec.layout: expected one of NHWC, NCHW, got 'NWHC'"),
        (dict(dtype="f64"), "ConvSpec.dtype: expected one of f32, f16, bf16, got 'f64'"),
        (
            dict(filter=(9, 3)),
            "ConvSpec.filter: expected a dilated filter that fits the padded input in dimension 0 (output size -1), got (9, 3)",
        ),
        (dict(bias=1), "ConvSpec.bias: expected True or False, got 1"),
        (
            dict(activation="gelu"),
            "ConvSpec.activation: expected one of none, relu, relu6, gelu_tanh, gelu_erf, got 'gelu'",
        ),
        (
            dict(residual="before"),
            "ConvSpec.residual: expected one of none, before_activation, after_activation, got 'before'",
        ),
        (
            dict(scale=0.5),
            "ConvSpec.scale: expected a positive decimal string such as '0.5' (finite and above 0 as f32), got 0.5",
        ),
        (
            dict(scale="-1"),
            "ConvSpec.scale: expected a positive decimal string such as '0.5' (finite and above 0 as f32), got '-1'",
        ),
        (
            dict(scale="1e-50"),
            "ConvSpec.scale: expected a positive decimal string such as '0.5' (finite and above 0 as f32), got '1e-50'",
        ),
        # The C++ engine holds every size in an int64: both engines refuse more.
        (
            dict(n=2**63),
            "ConvSpec.n: expected a positive int below 2**63 (the C++ engine's int64 limit), got 9223372036854775808",
        ),
        (
            dict(pad=(0, 2**64)),
            "ConvSpec.pad: expected ints >= 0 and below 2**63 (the C++ engine's int64 limit), got (0, 18446744073709551616)",
        ),
    ],
)
def test_bad_field_is_named(kwargs, message):
    base = dict(n=1, c=8, k=4, spatial=(7, 9), filter=(3, 3))
    with pytest.raises(SpecError) as err:
        ConvSpec(**{**base, **kwargs})
    assert str(err.value) == message


def test_each_family_has_at_least_30_cases_per_flavor_across_the_four_archs():
    for cases in (direct_cases(), img2col_cases()):
        assert len(cases) >= 30
        assert {c.arch for c in cases} == {"gfx942", "gfx950", "gfx1201", "gfx1250"}
        # llvm20 cannot lower gfx1250: at least 30 still lower there.
        assert sum(c.arch != "gfx1250" for c in cases) >= 30


def test_families_cover_depthwise_and_3d():
    specs = [c.spec for c in direct_cases()]
    assert any(s.groups == s.c == s.k for s in specs)
    assert any(s.dims == 3 for s in specs) and any(s.dims == 3 for s in (c.spec for c in img2col_cases()))


ALL_CASES = direct_cases() + img2col_cases()


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_every_case_round_trips_through_canonical_json(case):
    text = json.dumps(case.spec.to_json(), sort_keys=True, separators=(",", ":"))
    back = ConvSpec.from_json(json.loads(text))
    assert back == case.spec and hash(back) == hash(case.spec)
    assert back.to_json() == case.spec.to_json()


def test_to_json_is_every_field_with_lists_and_the_defaults_filled():
    spec = ConvSpec(1, 8, 4, (7, 9), (3, 3), pad=(1, 0))
    assert spec.to_json() == {
        "n": 1,
        "c": 8,
        "k": 4,
        "spatial": [7, 9],
        "filter": [3, 3],
        "stride": [1, 1],
        "pad": [1, 0],
        "dilation": [1, 1],
        "groups": 1,
        "layout": "NHWC",
        "dtype": "f16",
        "bias": False,
        "activation": "none",
        "residual": "none",
        "scale": "1",
    }


def test_json_lists_and_numpy_ints_make_the_equal_spec():
    want = ConvSpec(1, 8, 4, (8, 8), (3, 3), stride=(2, 2))
    from_lists = ConvSpec.from_json({"n": 1, "c": 8, "k": 4, "spatial": [8, 8], "filter": [3, 3], "stride": [2, 2]})
    from_numpy = ConvSpec(
        np.int64(1),
        np.int32(8),
        np.uint8(4),
        list(np.array([8, 8])),
        [np.int64(3), np.int64(3)],
        stride=(np.int16(2), 2),
    )
    for spec in (from_lists, from_numpy):
        assert spec == want and hash(spec) == hash(want)
        assert all(type(v) is int for v in (spec.n, spec.c, spec.k, *spec.spatial, *spec.filter, *spec.stride))
        assert isinstance(spec.spatial, tuple)


@pytest.mark.parametrize(
    "obj,message",
    [
        (
            {"n": 1, "c": 8, "k": 4, "spatial": [8, "8"], "filter": [3, 3]},
            "ConvSpec.spatial: expected ints >= 1, got (8, '8')",
        ),
        (
            {"n": 1.0, "c": 8, "k": 4, "spatial": [8, 8], "filter": [3, 3]},
            "ConvSpec.n: expected a positive int, got 1.0",
        ),
        (
            {"n": 1, "c": 8, "k": 4, "spatial": [8, 8], "filter": [3, 3], "bias": 1},
            "ConvSpec.bias: expected True or False, got 1",
        ),
        (
            {"n": 1, "c": 8, "k": 4, "spatial": [8, 8], "filter": [3, 3], "stride": 2},
            "ConvSpec.stride: expected a tuple of 2 ints (one per spatial dimension), got 2",
        ),
        (
            {"n": 1, "c": 8, "k": 4, "spatial": [8, 8], "filter": [3, 3], "padding": [1, 1]},
            "ConvSpec.padding: expected one of the fields n, c, k, spatial, filter, stride, pad, dilation, groups, layout, dtype, bias, activation, residual, scale, got the unknown field 'padding'",
        ),
        (
            {"n": 1, "c": 8, "k": 4, "spatial": [8, 8]},
            "ConvSpec.filter: expected a value (the field is required), got none",
        ),
        (
            [1, 8, 4],
            "ConvSpec: expected a JSON object with the fields n, c, k, spatial, filter, stride, pad, dilation, groups, layout, dtype, bias, activation, residual, scale, got [1, 8, 4]",
        ),
    ],
)
def test_a_bad_json_field_is_named(obj, message):
    with pytest.raises(SpecError) as err:
        ConvSpec.from_json(obj)
    assert str(err.value) == message


# -- the 2**31-byte limit on every tensor ----------------------------------------------

LIMIT = 2**31 - 1  # the largest byte count an i32 offset reaches
BYTES = {"f32": 4, "f16": 2, "bf16": 2}


def _refusal(what, shape, nbytes, fix):
    return (
        f"ConvSpec: expected every tensor at most {LIMIT} bytes (2**31 - 1: the kernels' offsets are 32-bit), "
        f"got the {what} {shape} of {nbytes} bytes; {fix}"
    )


def test_the_limit_is_what_an_i32_offset_reaches():
    assert MAX_TENSOR_BYTES == LIMIT


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_a_tensor_of_2_31_bytes_is_refused_and_the_largest_below_is_taken(dtype):
    elem = BYTES[dtype]
    # 2**30 - 1 = 9 * 7 * 11 * 31 * 151 * 331 elements: f16 2**31 - 2 bytes, the largest under the limit.
    # f32 takes 2**29 - 1 = 233 * 1103 * 2089 elements: 2**31 - 4 bytes.
    spatial, c = ((693, 4681), 331) if dtype == "f16" else ((1103, 2089), 233)
    largest = ConvSpec(1, c, c, spatial, (1, 1), dtype=dtype)
    assert elem * math.prod(largest.input_shape()) == (2**31 - 2 if dtype == "f16" else 2**31 - 4)
    # 2**31 bytes exactly: the smallest tensor an i32 offset cannot cover (offsets run to bytes - elem).
    h = 2**31 // (elem * 1024 * 1024)
    with pytest.raises(SpecError) as err:
        ConvSpec(1, 1024, 1, (h, 1024), (1, 1), dtype=dtype)
    shape = (1, h, 1024, 1024)
    assert elem * math.prod(shape) == 2**31
    assert str(err.value) == _refusal(
        "input",
        shape,
        2**31,
        "even one sample is over the limit: split the spatial extent or the channels into launches",
    )


@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
def test_the_largest_batch_is_taken_and_one_more_is_refused_naming_that_batch(layout):
    # The layer: 224x224x64 f32, 3x3 pad 1 (output as large as the input).
    def spec(n):
        return ConvSpec(n, 64, 64, (224, 224), (3, 3), pad=(1, 1), layout=layout, dtype="f32")

    per_sample = 4 * 224 * 224 * 64
    largest = LIMIT // per_sample
    assert spec(largest).n == largest
    with pytest.raises(SpecError) as err:
        spec(largest + 1)
    shape = (largest + 1, 224, 224, 64) if layout == "NHWC" else (largest + 1, 64, 224, 224)
    fix = f"use a smaller batch (n at most {largest}), or split the batch into launches of at most {largest}"
    assert str(err.value) == _refusal("input", shape, per_sample * (largest + 1), fix)
    # The batch of 256: 3.3 GB.
    with pytest.raises(SpecError, match=f"of {256 * per_sample} bytes; use a smaller batch"):
        spec(256)


def test_the_output_bounds_the_batch_when_it_is_the_larger():
    # c=8 in, k=128 out: the output is 16 times the input per sample.
    out_per_sample = 2 * 64 * 64 * 128
    largest = LIMIT // out_per_sample

    def spec(n):
        return ConvSpec(n, 8, 128, (64, 64), (1, 1))

    spec(largest)
    with pytest.raises(SpecError) as err:
        spec(largest + 1)
    fix = f"use a smaller batch (n at most {largest}), or split the batch into launches of at most {largest}"
    assert str(err.value) == _refusal("output", (largest + 1, 64, 64, 128), out_per_sample * (largest + 1), fix)


def test_weights_over_the_limit_are_refused_naming_the_filters():
    # 1x1 filters over c=2**15 channels, bf16: k * 2**16 bytes.
    largest = LIMIT // (2 * 2**15)
    ConvSpec(1, 2**15, largest, (1, 1), (1, 1), dtype="bf16")
    with pytest.raises(SpecError) as err:
        ConvSpec(1, 2**15, largest + 1, (1, 1), (1, 1), dtype="bf16")
    assert str(err.value) == _refusal(
        "weights", (largest + 1, 1, 1, 2**15), 2 * 2**15 * (largest + 1), "split the filters (k) into launches"
    )


def test_grouped_weights_count_only_a_groups_channels():
    # groups=2 halves each filter's channels: k filters over 2**15 channels
    # that do not fit at groups=1 fit at groups=2.
    k = 2 * (LIMIT // (2 * 2**14) // 2)  # even, the most f16 filters of 2**14 channels that fit
    with pytest.raises(SpecError, match=f"got the weights \\({k}, 1, 1, 32768\\) of {2 * 2**15 * k} bytes"):
        ConvSpec(1, 2**15, k, (1, 1), (1, 1), dtype="f16")
    assert ConvSpec(1, 2**15, k, (1, 1), (1, 1), groups=2, dtype="f16").weight_shape() == (k, 1, 1, 2**14)


def test_check_tensor_bytes_words_a_familys_own_buffer_alike():
    # What a split-K family states for its f32 workspace: the same limit and words.
    from conv.spec import check_tensor_bytes

    check_tensor_bytes("SplitK", "workspace", [LIMIT // 4], 4, "fewer splits")
    with pytest.raises(SpecError) as err:
        check_tensor_bytes("SplitK", "workspace", [LIMIT // 4 + 1], 4, "fewer splits")
    assert str(err.value) == _refusal("workspace", (LIMIT // 4 + 1,), 2**31, "fewer splits").replace(
        "ConvSpec", "SplitK"
    )
    assert err.value.facts() == ["SpecError", "SplitK", [LIMIT // 4 + 1], LIMIT]
