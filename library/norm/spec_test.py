"""NormSpec validation: every bad field is named, with the value and what is allowed; the derived vector
width and chunks."""

import json

import numpy as np
import pytest

from norm.spec import NormSpec, SpecError

BASE = dict(kind="layernorm", rows=4, dim=768, dtype="f16", eps="1e-5", threads=64, per_lane=16)


@pytest.mark.parametrize(
    "fields,message",
    [
        (dict(rows=0), "NormSpec.rows: expected a positive int, got 0"),
        (dict(dim=768.0), "NormSpec.dim: expected a positive int, got 768.0"),
        (dict(threads=True), "NormSpec.threads: expected a positive int, got True"),
        (dict(kind="batchnorm"), "NormSpec.kind: expected one of layernorm, rmsnorm, got 'batchnorm'"),
        (dict(dtype="f64"), "NormSpec.dtype: expected one of f16, bf16, f32, got 'f64'"),
        (dict(affine=1), "NormSpec.affine: expected True or False, got 1"),
        (dict(eps=1e-5), r"NormSpec.eps: expected a positive decimal string such as '1e-5' .*, got 1e-05"),
        (dict(eps="1e-50"), r"NormSpec.eps: expected a positive decimal string .*, got '1e-50'"),
        (dict(threads=96), "NormSpec.threads: expected a multiple of 64 at most 1024, got 96"),
        (dict(per_lane=12), "NormSpec.per_lane: expected a multiple of 8 at most 64, got 12"),
        (dict(residual_out=True), r"NormSpec.residual_out: expected False without a residual .*; set residual too"),
        (dict(rows=2**20, dim=2**11), r"NormSpec.rows: expected a \[rows, dim\] tensor .*; use rows at most 524287"),
    ],
)
def test_bad_fields_are_named(fields, message):
    with pytest.raises(SpecError, match=message):
        NormSpec(**{**BASE, **fields})


@pytest.mark.parametrize(
    "dim,dtype,vec",
    [(768, "f16", 8), (771, "f16", 1), (772, "f16", 4), (4096, "bf16", 8), (1024, "f32", 4), (770, "f32", 2)],
)
def test_the_vector_is_the_widest_that_keeps_every_row_aligned(dim, dtype, vec):
    assert NormSpec(**{**BASE, "dim": dim, "dtype": dtype}).vec == vec


def test_chunks_and_eps():
    spec = NormSpec(**{**BASE, "dim": 1200, "per_lane": 8, "eps": "0.1"})
    assert (spec.chunk, spec.chunks) == (512, 3)
    assert spec.eps_value == float(np.float32(0.1)) != 0.1


def test_json_round_trip_and_numpy_ints():
    spec = NormSpec(**{**BASE, "rows": np.int64(4), "residual": True})
    assert type(spec.rows) is int
    assert NormSpec.from_json(json.loads(json.dumps(spec.to_json()))) == spec
    with pytest.raises(SpecError, match="NormSpec.eps: expected a value"):
        NormSpec.from_json({k: v for k, v in BASE.items() if k != "eps"})
