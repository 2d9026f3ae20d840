"""WgradSpec in C++ (wgrad_spec_dump) against Python's WgradSpec.from_json on
the same JSON: every refusal with the same class, field, value and allowed
values (each engine words its own message), every accepted spec's to_json
equal (parity/harness.py)."""

import os


from conv.cases import igemm_wgrad_cases
from conv.wgrad_spec import WgradSpec
from parity import harness

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wgrad_spec_dump")

CONV = {"n": 2, "c": 16, "k": 32, "spatial": [9, 9], "filter": [3, 3], "pad": [1, 1], "dtype": "f16"}
IGEMM = {"conv": CONV, "mma": "16x16x16", "block_m": 64, "block_n": 64, "block_k": 32, "waves_m": 2, "waves_n": 2}
BASE = {"igemm": IGEMM, "split": 1, "mode": "none"}  # a reduction of 162: 6 k steps


def _with(**fields):
    return {**BASE, **fields}


# One spec per check from_json and __post_init__ make, in their order, and
# values whose repr differs by type (True vs 1, None, lists, quotes).
BAD = [
    [1, 2],
    "x",
    None,
    3,
    {},
    {"igemm": IGEMM, "split": 1},
    _with(extra=1),
    _with(igemm=None),
    _with(igemm=[1]),
    _with(igemm="NHWC"),
    _with(igemm={**IGEMM, "mma": "8x8x8"}),
    _with(igemm={**IGEMM, "conv": {**CONV, "dtype": "f32"}}),
    _with(igemm={**IGEMM, "conv": {**CONV, "bias": True}}),
    _with(igemm={**IGEMM, "conv": {**CONV, "bias": True}}, split=0),
    _with(igemm={**IGEMM, "conv": {**CONV, "activation": "relu6"}}),
    _with(igemm={**IGEMM, "conv": {**CONV, "scale": "2"}}),
    _with(split=0),
    _with(split=-2),
    _with(split=True),
    _with(split="2"),
    _with(split=None),
    _with(split=2**63, mode="atomic"),
    _with(split=2**64),
    _with(split=-(2**63) - 1),  # beyond 64 bits
    _with(mode="both"),
    _with(mode=None),
    _with(mode=1),
    _with(mode=["none"]),
    _with(split=2),
    _with(mode="atomic"),
    _with(mode="two_stage"),
    _with(split=7, mode="atomic"),
    _with(
        igemm={**IGEMM, "conv": {**CONV, "n": 64, "c": 512, "k": 1024, "spatial": [32, 32]}},
        split=128,
        mode="two_stage",
    ),
]
GOOD = [
    BASE,
    _with(split=6, mode="two_stage"),
    _with(split=2, mode="atomic"),
    _with(
        igemm={**IGEMM, "conv": {**CONV, "n": 64, "c": 512, "k": 1024, "spatial": [32, 32]}}, split=64, mode="two_stage"
    ),
    *(c.spec.to_json() for c in igemm_wgrad_cases()),
]


# The refusals' classes: WgradSpecError, or IgemmSpec's and ConvSpec's for a bad igemm.
TestSpecParity = harness.spec_parity(
    DUMP, BAD, GOOD, WgradSpec.from_json, classes=("WgradSpecError", "IgemmSpecError", "SpecError")
)
