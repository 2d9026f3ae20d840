"""ConvSpec in C++ (spec_dump) against Python's ConvSpec.from_json on the same
JSON: every refusal with the same class, field, value and allowed values
(each engine words its own message: one line naming the field), every
accepted spec's to_json equal (parity/harness.py)."""

import os

import pytest

from conv.cases import direct_cases, img2col_cases
from conv.spec import ConvSpec
from parity import harness

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spec_dump")

BASE = {"n": 1, "c": 8, "k": 12, "spatial": [7, 9], "filter": [3, 3]}


def _with(**fields):
    return {**BASE, **fields}


# One spec per check __post_init__ and from_json make, in their order, and
# values of every JSON type (True vs 1, [8], None, quotes).
BAD = [
    *harness.shape_refusals(BASE, "strides"),
    _with(**{"it's": 1}),
    _with(n=0),
    _with(n=True),
    _with(n="1", c=0),
    _with(c=[8]),
    _with(k=-3),
    _with(k="it's"),
    _with(k={"a": [1, None]}),
    _with(groups=0),
    _with(groups=False),
    _with(groups=None),
    _with(groups=5),
    _with(spatial=[7]),
    _with(spatial=[]),
    _with(spatial=None),
    _with(spatial=7),
    _with(spatial=[1, 2, 3, 4]),
    _with(spatial=[0, 9]),
    _with(spatial=[7, "9"]),
    _with(filter=[3]),
    _with(filter=[3, [3]]),
    _with(filter=[], stride=[]),
    _with(filter=None),
    _with(filter=[0, 3]),
    _with(filter=[3, 3, 3]),
    _with(stride=[1]),
    _with(stride=5),
    _with(stride=[0, 1]),
    _with(stride=[1, True]),
    _with(pad=[-1, 0]),
    _with(pad=[0]),
    _with(pad="0"),
    _with(dilation=[1, True]),
    _with(dilation=[0, 0]),
    _with(layout="nhwc"),
    _with(layout=["NHWC"]),
    _with(layout=None),
    _with(layout=1),
    _with(layout='say "x"'),
    _with(dtype="f64"),
    _with(dtype=None),
    _with(dtype=16),
    _with(bias=0),
    _with(bias="true"),
    _with(bias=None),
    _with(activation="gelu"),
    _with(activation=None),
    _with(residual="before"),
    _with(residual=True),
    _with(scale="-1"),
    _with(scale="1e-50"),
    _with(scale="1e39"),
    _with(scale=".5"),
    _with(filter=[9, 3]),
    _with(filter=[3, 11]),
    _with(spatial=[2, 2, 2], filter=[3, 3, 3], pad=[0, 1, 0]),
    _with(spatial=[1, 9], filter=[4, 3], stride=[2, 1]),
    _with(spatial=[5, 5], filter=[3, 3], dilation=[3, 1]),
    # A dilated filter far past int64, and padded sizes at and past 2**63.
    _with(filter=[2**62, 3], dilation=[2**62, 1]),
    _with(spatial=[2**63 - 1, 9], pad=[1, 0]),
    _with(spatial=[7, 2**62], pad=[0, 2**61]),
    # Either side of the largest padded size, 7 + 2 * pad = 2**63 - 1.
    _with(pad=[2**62 - 4, 0]),
    _with(pad=[2**62 - 3, 0]),
    # Tensors over 2**31 - 1 bytes: the batch, the output, the weights, one
    # sample too large, and byte counts past 2**63 and 2**127.
    _with(n=256, c=64, k=64, spatial=[224, 224], filter=[3, 3], pad=[1, 1], dtype="f32"),
    _with(n=2**31 // (2 * 64 * 64 * 128) + 1, c=8, k=128, spatial=[64, 64], filter=[1, 1], layout="NCHW"),
    _with(c=2**15, k=2**15, spatial=[1, 1], filter=[1, 1], dtype="bf16"),
    _with(c=1024, k=1, spatial=[1024, 1024], filter=[1, 1]),
    _with(pad=[2**62, 0]),
    _with(n=2**62, c=2**62, k=2**62, spatial=[2**62, 2**62, 2**62], filter=[1, 1, 1], dtype="f32"),
    # Integers beyond 64 bits, which the C++ engine reads as they are.
    _with(n=2**63),
    _with(c=-(2**63) - 1),
    _with(groups=2**64),
    _with(spatial=[2**64, 3]),
    _with(pad=[0, 2**100]),
    _with(stride=[-(2**70), 1]),
    _with(filter=[3, 2**63]),
]
GOOD = [
    BASE,
    _with(spatial=[1, 1], filter=[1, 1], stride=[2, 2], pad=[0, 0]),
    _with(
        layout="NCHW", dtype="bf16", bias=True, activation="relu", groups=4, stride=[2, 1], pad=[1, 0], dilation=[1, 2]
    ),
    _with(spatial=[4, 5, 6], filter=[1, 2, 3], stride=None, pad=None, dilation=None, dtype="f32"),
    # The largest batch of the layer under 2**31 bytes, and the largest f16 and f32 tensors.
    _with(
        n=(2**31 - 1) // (4 * 224 * 224 * 64), c=64, k=64, spatial=[224, 224], filter=[3, 3], pad=[1, 1], dtype="f32"
    ),
    _with(c=331, k=331, spatial=[693, 4681], filter=[1, 1]),
    _with(c=233, k=233, spatial=[1103, 2089], filter=[1, 1], dtype="f32"),
    *(c.spec.to_json() for c in direct_cases() + img2col_cases()),
]


TestSpecParity = harness.spec_parity(DUMP, BAD, GOOD, ConvSpec.from_json)


@pytest.mark.parametrize("part,planted", [(1, "ConvSpec.n"), (2, 3), (3, 1)])
def test_a_planted_difference_in_the_facts_fails(tmp_path_factory, part, planted):
    # C++'s refusal of k=-3 with another field, value or allowed value: the
    # check must fail naming the facts.
    obj = _with(k=-3)
    got = TestSpecParity.answers(tmp_path_factory)[BAD.index(obj)]
    want = harness.python(ConvSpec.from_json, obj)
    harness.check(obj, got, want)
    wrong = [got[0], [*got[1]], got[2]]
    wrong[1][part] = planted
    with pytest.raises(AssertionError, match="facts"):
        harness.check(obj, wrong, want)
