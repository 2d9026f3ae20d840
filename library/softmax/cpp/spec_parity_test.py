"""SoftmaxSpec in C++ (spec_dump) against Python's SoftmaxSpec.from_json on
the same JSON: every refusal with the same class, field, value and allowed
values (each engine words its own message), every accepted spec's to_json
equal (parity/harness.py)."""

import os

from parity import harness
from softmax.cases import cases
from softmax.spec import SoftmaxSpec

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spec_dump")

BASE = {"rows": 8, "dim": 1000}


def _with(**fields):
    return {**BASE, **fields}


# One spec per check __post_init__ and from_json make, in their order, and
# values of every JSON type (True vs 1, None, lists, quotes) but floats, which
# no spec holds and the C++ JSON reader refuses (spec_test has Python's refusal).
BAD = [
    *harness.shape_refusals(BASE, "eps"),
    _with(rows=0),
    _with(dim=True),
    _with(rows="2"),
    _with(dim=None),
    _with(rows=[1]),
    _with(dim=-64),
    _with(waves=2**31),
    _with(lane_elements=2**70),
    _with(waves=-(10**30)),
    _with(dtype="f64"),
    _with(dtype=None),
    _with(mask=1),
    _with(mask="yes"),
    _with(scale="1e-2x"),
    _with(scale="0"),
    _with(scale="1e39"),
    _with(scale="1e-50"),
    _with(scale=" 0.5"),
    _with(scale=None),
    _with(scale=1),
    _with(waves=17),
    _with(rows=2**20, dim=2**10),
    _with(rows=2**31 - 1, dim=2**31 - 1),
]
GOOD = [
    BASE,
    _with(dtype="bf16", mask=True, scale="0.125"),
    _with(dtype="f32", dim=77, scale="2.5e0", waves=16, lane_elements=1),
    _with(rows=2**19 - 1, dim=2**10),
    *(c.spec.to_json() for c in cases()),
]


TestSpecParity = harness.spec_parity(DUMP, BAD, GOOD, SoftmaxSpec.from_json)
