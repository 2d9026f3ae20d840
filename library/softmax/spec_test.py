"""SoftmaxSpec validation: every bad field is named, with the value and what is allowed."""

import json

import numpy as np
import pytest

from softmax.spec import SoftmaxSpec, SpecError


@pytest.mark.parametrize(
    "fields,message",
    [
        (dict(rows=0), "SoftmaxSpec.rows: expected a positive int, got 0"),
        (dict(dim=2.0), "SoftmaxSpec.dim: expected a positive int, got 2.0"),
        (dict(waves=True), "SoftmaxSpec.waves: expected a positive int, got True"),
        (
            dict(lane_elements=2**31),
            "SoftmaxSpec.lane_elements: expected a positive int at most 2147483647 (2**31 - 1: an i32 in the "
            "kernel), got 2147483648",
        ),
        (dict(dtype="f64"), "SoftmaxSpec.dtype: expected one of f16, bf16, f32, got 'f64'"),
        (dict(mask=1), "SoftmaxSpec.mask: expected True or False, got 1"),
        (dict(scale=0.5), "SoftmaxSpec.scale: expected a positive decimal such as '0.125', got 0.5"),
        (dict(scale="0"), "SoftmaxSpec.scale: expected a positive decimal such as '0.125', got '0'"),
        (dict(scale="1e-50"), "SoftmaxSpec.scale: expected a positive decimal such as '0.125', got '1e-50'"),
        (dict(scale="-1"), "SoftmaxSpec.scale: expected a positive decimal such as '0.125', got '-1'"),
        (dict(waves=17), "SoftmaxSpec.waves: expected at most 16 (a workgroup holds at most 1024 lanes), got 17"),
        (
            dict(rows=2**20, dim=2**10),
            "SoftmaxSpec.rows: expected every tensor at most 2147483647 bytes (2**31 - 1: the kernel's offsets are "
            "32-bit), got 4294967296 bytes of f32 rows; use rows at most 524287",
        ),
    ],
)
def test_bad_fields_are_named(fields, message):
    with pytest.raises(SpecError) as e:
        SoftmaxSpec(**{"rows": 8, "dim": 1000, **fields})
    assert str(e.value) == message


def test_defaults_json_round_trip_and_numpy_ints():
    spec = SoftmaxSpec(np.int64(8), 1000)
    assert type(spec.rows) is int
    assert spec.to_json() == {
        "rows": 8,
        "dim": 1000,
        "dtype": "f16",
        "mask": False,
        "scale": "1",
        "waves": 4,
        "lane_elements": 32,
    }
    assert SoftmaxSpec.from_json(json.loads(json.dumps(spec.to_json()))) == spec


@pytest.mark.parametrize(
    "dim,dtype,vector",
    [(1024, "f16", 8), (1000, "bf16", 8), (100, "f16", 4), (77, "f16", 1), (100, "f32", 4), (6, "f32", 2)],
)
def test_a_vector_is_16_bytes_where_the_row_keeps_it_aligned(dim, dtype, vector):
    assert SoftmaxSpec(1, dim, dtype).vector == vector


def test_the_scale_is_rounded_to_f32():
    assert SoftmaxSpec(1, 8, scale="0.1").scale_value == float(np.float32(0.1))
