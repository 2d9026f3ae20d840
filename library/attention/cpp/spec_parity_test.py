"""AttentionSpec in C++ (spec_dump) against Python's AttentionSpec.from_json
on the same JSON: every refusal with the same class, field, value and allowed
values (each engine words its own message), every accepted spec's to_json
equal (parity/harness.py)."""

import os

from attention.cases import cases
from attention.spec import AttentionSpec
from parity import harness

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spec_dump")

BASE = {
    "batch": 2,
    "heads": 8,
    "kv_heads": 2,
    "seq_q": 100,
    "seq_k": 130,
    "head_dim": 64,
    "dtype": "f16",
    "mma": "16x16x16",
    "block_m": 128,
    "block_n": 64,
    "waves": 8,
}


def _with(**fields):
    return {**BASE, **fields}


# One spec per check __post_init__ and from_json make, in their order, and
# values of every JSON type (True vs 1, None, lists, quotes) but floats, which
# no spec holds and the C++ JSON reader refuses (spec_test has Python's refusal).
BAD = [
    *harness.shape_refusals(BASE, "window"),
    _with(batch=0),
    _with(heads=True),
    _with(kv_heads="2"),
    _with(seq_q=None),
    _with(seq_k=[1]),
    _with(head_dim=-64),
    _with(block_m=2**31),
    _with(block_n=2**70),
    _with(waves=-(10**30)),
    _with(dtype="f32"),
    _with(dtype=None),
    _with(layout="sbhd"),
    _with(mask="causal"),
    _with(mask=0),
    _with(causal=1),
    _with(lse="yes"),
    _with(head_dim=96),
    _with(head_dim=256),
    _with(kv_heads=3),
    _with(scale="1e-2x"),
    _with(scale="0"),
    _with(scale="1e39"),
    _with(scale="1e-50"),
    _with(scale=" 0.5"),
    _with(scale=None),
    _with(mma="16x16x8"),
    _with(mma=None),
    _with(mma="32x32x8"),
    _with(block_m=96),
    _with(block_n=40),
    _with(batch=64, seq_k=2**20),
    _with(batch=2**30, heads=2**30, kv_heads=2**30, seq_q=2**30),
]
GOOD = [
    BASE,
    _with(causal=True, mask="padding", scale="0.5", layout="bhsd", lse=True),
    _with(scale="1.5e-1", head_dim=128, dtype="bf16", kv_heads=8),
    _with(mma="16x16x32", block_n=32),
    *(c.spec.to_json() for c in cases()),
]


TestSpecParity = harness.spec_parity(DUMP, BAD, GOOD, AttentionSpec.from_json)
