"""ReduceSpec in C++ (igemm_spec_dump's {"reduce": S}) against Python's
ReduceSpec.from_json on the same JSON: every refusal with the same class,
field, value and allowed values (each engine words its own message), every
accepted spec's to_json equal (parity/harness.py)."""

import os


from conv.reduce_spec import ReduceSpec
from conv.split_k_reduce import FAMILY
from parity import harness

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "igemm_spec_dump")

CONV = {"n": 2, "c": 16, "k": 32, "spatial": [9, 9], "filter": [3, 3], "pad": [1, 1], "dtype": "f16"}
BASE = {"conv": CONV, "split_k": 4}


def _with(**fields):
    return {**BASE, **fields}


# One spec per check from_json and __post_init__ make, in their order.
BAD = [
    [1, 2],
    "x",
    None,
    3,
    {},
    {"conv": CONV},
    _with(mma="16x16x16"),
    _with(conv=None),
    _with(conv=[1]),
    _with(conv={**CONV, "n": 0}),
    _with(conv={**CONV, "extra": 1}),
    _with(split_k=1),
    _with(split_k=0),
    _with(split_k=-3),
    _with(split_k=True),
    _with(split_k="4"),
    _with(split_k=None),
    _with(split_k=[4]),
    _with(split_k=2**63),
    _with(split_k=-(2**64)),  # beyond 64 bits
    _with(conv={**CONV, "n": 1, "k": 1024, "spatial": [512, 1024], "pad": [1, 1]}, split_k=2),  # a 4 GiB workspace
    _with(conv={**CONV, "n": 1, "c": 8, "k": 8, "spatial": [4096, 4096], "filter": [1, 1], "pad": [0, 0]}, split_k=9),
    _with(tensor="x"),
    _with(tensor=None),
    _with(tensor=["dw"]),
    _with(tensor="dw", conv={**CONV, "bias": True}),  # a weight gradient has no epilogue
    _with(tensor="dw", conv={**CONV, "activation": "relu"}),
    # dw of 4096 x 4096 x 3 x 3 in f32 is 576 MiB: 4 slices pass 2 GiB.
    _with(tensor="dw", conv={**CONV, "c": 4096, "k": 4096, "spatial": [3, 3]}, split_k=4),
]
GOOD = [
    BASE,
    _with(split_k=16),
    _with(conv={**CONV, "layout": "NCHW", "dtype": "bf16", "bias": True, "activation": "relu"}),
    _with(tensor="y"),  # the default: written back without the field
    _with(tensor="dw"),
    _with(tensor="dw", conv={**CONV, "layout": "NCHW", "dtype": "bf16"}, split_k=64),
    *(c.spec.to_json() for c in FAMILY.cases),
]


# The refusals' classes: ReduceSpecError, or SpecError for a bad conv or workspace.
TestSpecParity = harness.spec_parity(
    DUMP,
    BAD,
    GOOD,
    lambda request: ReduceSpec.from_json(request["reduce"]),
    classes=("SpecError", "ReduceSpecError"),
    wrap=lambda spec: {"reduce": spec},
)
