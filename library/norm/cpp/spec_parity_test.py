"""NormSpec in C++ (spec_dump) against Python's NormSpec.from_json on the same
JSON: every refusal with the same class, field, value and allowed values (each
engine words its own message), every accepted spec's to_json equal
(parity/harness.py)."""

import os

from norm.cases import cases
from norm.spec import NormSpec
from parity import harness

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spec_dump")

BASE = {
    "kind": "layernorm",
    "rows": 4,
    "dim": 768,
    "dtype": "f16",
    "eps": "1e-5",
    "threads": 64,
    "per_lane": 16,
}


def _with(**fields):
    return {**BASE, **fields}


# One spec per check __post_init__ and from_json make, in their order, and
# values of every JSON type (True vs 1, None, lists) but floats, which no
# spec holds and the C++ JSON reader refuses (spec_test has Python's refusal).
BAD = [
    *harness.shape_refusals(BASE, "window"),
    _with(rows=0),
    _with(dim=True),
    _with(threads="64"),
    _with(per_lane=None),
    _with(rows=[1]),
    _with(dim=2**31),
    _with(threads=2**70),
    _with(per_lane=-(10**30)),
    _with(kind="batchnorm"),
    _with(kind=None),
    _with(dtype="f64"),
    _with(affine=1),
    _with(residual="yes"),
    _with(residual_out=None),
    _with(eps=1),
    _with(eps="0"),
    _with(eps="1e-50"),
    _with(eps="1e39"),
    _with(eps=" 1e-5"),
    _with(eps="-1e-5"),
    _with(threads=96),
    _with(threads=2048),
    _with(per_lane=12),
    _with(per_lane=72),
    _with(residual_out=True),
    _with(rows=2**20, dim=2**11),
    _with(rows=2**31 - 1, dim=2**31 - 1, dtype="f32"),
]
GOOD = [
    BASE,
    _with(kind="rmsnorm", dtype="bf16", eps="1e-6", affine=False),
    _with(dim=771, dtype="f32", residual=True, residual_out=True, threads=1024, per_lane=64),
    _with(eps="0.5", residual=True),
    *(c.spec.to_json() for c in cases()),
]


TestSpecParity = harness.spec_parity(DUMP, BAD, GOOD, NormSpec.from_json)
