"""GemmSpec validation: every bad field is named, with the value and what is allowed."""

import json

import numpy as np
import pytest

from gemm.spec import GemmSpec, SpecError

BASE = dict(m=100, n=72, k=40, dtype="f16", out="f32", mma="16x16x16", block_m=128, block_n=128, block_k=32, waves_m=2, waves_n=2)


@pytest.mark.parametrize("kwargs,message", [
    (dict(m=0), "GemmSpec.m: expected a positive int, got 0"),
    (dict(k=2.0), "GemmSpec.k: expected a positive int, got 2.0"),
    (dict(waves_n=True), "GemmSpec.waves_n: expected a positive int, got True"),
    (dict(dtype="f32"), "GemmSpec.dtype: expected one of f16, bf16, fp8, got 'f32'"),
    (dict(out="fp8"), "GemmSpec.out: expected one of f16, bf16, f32, got 'fp8'"),
    (dict(layout_a="row_major"), "GemmSpec.layout_a: expected one of row, col, got 'row_major'"),
    (dict(layout_b="T"), "GemmSpec.layout_b: expected one of row, col, got 'T'"),
    (dict(bias_relu="yes"), "GemmSpec.bias_relu: expected True or False, got 'yes'"),
    (dict(mma="16x16x8"), "GemmSpec.mma: expected a matrix-core shape of f16 inputs: one of 16x16x16, 16x16x32, 32x32x8, 32x32x16, got '16x16x8'"),
    (dict(dtype="fp8"), "GemmSpec.mma: expected a matrix-core shape of fp8 inputs: one of 16x16x32, got '16x16x16'"),
    (dict(block_m=80), "GemmSpec.block_m: expected a multiple of waves_m (2) x the mma's M (16) = 32, got 80"),
    (dict(waves_n=3), "GemmSpec.block_n: expected a multiple of waves_n (3) x the mma's N (16) = 48, got 128"),
    (dict(block_k=24), "GemmSpec.block_k: expected a multiple of the mma's K (16) = 16, got 24"),
])
def test_bad_field_is_named(kwargs, message):
    with pytest.raises(SpecError) as err:
        GemmSpec(**{**BASE, **kwargs})
    assert str(err.value) == message


def test_defaults_shapes_and_grid():
    s = GemmSpec(**BASE)
    assert (s.layout_a, s.layout_b, s.bias_relu) == ("row", "row", False)
    assert s.op == "mma_16x16x16_f16_f32" and s.mma_shape == (16, 16, 16) and s.waves == 4
    assert s.a_shape() == (100, 40) and s.b_shape() == (40, 72) and s.grid() == (1, 1, 1)
    t = GemmSpec(**{**BASE, "m": 300, "n": 129, "layout_a": "col", "layout_b": "col"})
    assert t.a_shape() == (40, 300) and t.b_shape() == (129, 40) and t.grid() == (2, 3, 1)


def test_to_json_is_every_field_and_reads_back_equal():
    spec = GemmSpec(**BASE, layout_b="col", bias_relu=True)
    assert spec.to_json() == {**BASE, "layout_a": "row", "layout_b": "col", "bias_relu": True}
    back = GemmSpec.from_json(json.loads(json.dumps(spec.to_json())))
    assert back == spec and hash(back) == hash(spec)


def test_numpy_ints_make_the_equal_spec():
    spec = GemmSpec(**{**BASE, "m": np.int64(100), "n": np.int32(72), "k": np.uint8(40), "waves_m": np.int16(2)})
    assert spec == GemmSpec(**BASE) and hash(spec) == hash(GemmSpec(**BASE))
    assert all(type(getattr(spec, f)) is int for f in ("m", "n", "k", "waves_m"))


@pytest.mark.parametrize("obj,message", [
    ([1, 2], "GemmSpec: expected a JSON object with the fields m, n, k, dtype, out, mma, block_m, block_n, block_k, waves_m, waves_n, layout_a, layout_b, bias_relu, got [1, 2]"),
    ({**BASE, "lda": 4}, "GemmSpec.lda: expected one of the fields m, n, k, dtype, out, mma, block_m, block_n, block_k, waves_m, waves_n, layout_a, layout_b, bias_relu, got the unknown field 'lda'"),
    ({k: v for k, v in BASE.items() if k != "mma"}, "GemmSpec.mma: expected a value (the field is required), got none"),
])
def test_bad_json_is_named(obj, message):
    with pytest.raises(SpecError) as err:
        GemmSpec.from_json(obj)
    assert str(err.value) == message
