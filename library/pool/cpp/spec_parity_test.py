"""PoolSpec in C++ (spec_dump) against Python's PoolSpec.from_json on the
same JSON: every refusal with the same class, field, value and allowed values
(each engine words its own message), every accepted spec's to_json equal
(parity/harness.py)."""

import os

from parity import harness
from pool.cases import cases
from pool.spec import PoolSpec

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spec_dump")

BASE = {"n": 2, "c": 64, "spatial": [12, 12], "kind": "max", "window": [3, 3]}


def _with(**fields):
    return {**BASE, **fields}


# One spec per check __post_init__ and from_json make, in their order, and
# values of every JSON type but floats, which no spec holds and the C++ JSON
# reader refuses.
BAD = [
    *harness.shape_refusals(BASE, "filter"),
    _with(n=0),
    _with(c=True),
    _with(n="2"),
    _with(c=2**31),
    _with(n=2**70),
    _with(spatial=[12]),
    _with(spatial=[1, 2, 3, 4]),
    _with(spatial="12x12"),
    _with(spatial=[12, 0]),
    _with(window=[3]),
    _with(window=[3, None]),
    _with(stride=[0, 1]),
    _with(pad=[-1, 0]),
    _with(pad_end=[0, 2**31]),
    _with(kind="sum"),
    _with(kind=None),
    _with(layout="nhwc"),
    _with(layout=None),
    _with(dtype="fp8"),
    _with(count_pad=1),
    _with(count_pad=True),
    _with(pad=[3, 0]),
    _with(pad=[1, 1], pad_end=[0, 3]),
    _with(spatial=[2, 12]),
    _with(spatial=[2, 12], pad=[0, 0], pad_end=[1, 0], stride=[4, 4], window=[4, 4]),
    _with(n=2**20, c=2048),
    _with(spatial=[2**20, 2**20], c=2**20, n=1),
]
GOOD = [
    BASE,
    _with(stride=None, pad=None, pad_end=None, layout="NCHW", dtype="f32"),
    _with(kind="avg", count_pad=True, pad=[1, 0], pad_end=[0, 2], stride=[2, 1]),
    _with(spatial=[3, 5, 7], window=[2, 2, 2], dtype="bf16"),
    *(c.spec.to_json() for c in cases()),
]


TestSpecParity = harness.spec_parity(DUMP, BAD, GOOD, PoolSpec.from_json)
