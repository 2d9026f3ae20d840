"""GemmSpec and the tile table in C++ (spec_dump) against Python's
GemmSpec.from_json and tiles.spec_for on the same JSON: every refusal with
the same class, field, value and allowed values (each engine words its own
message), every accepted spec's to_json equal (parity/harness.py)."""

import os


from gemm import tiles
from gemm.cases import cases
from gemm.spec import GemmSpec
from parity import harness

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spec_dump")

BASE = {
    "m": 100,
    "n": 72,
    "k": 40,
    "dtype": "f16",
    "out": "f32",
    "mma": "16x16x16",
    "block_m": 128,
    "block_n": 128,
    "block_k": 32,
    "waves_m": 2,
    "waves_n": 2,
}


def _with(**fields):
    return {**BASE, **fields}


# One spec per check __post_init__ and from_json make, in their order, and
# values of every JSON type (True vs 1, None, lists, quotes).
BAD = [
    *harness.shape_refusals(BASE, "mmas"),
    _with(**{"it's": 1}),
    _with(m=0),
    _with(n=True),
    _with(k="40"),
    _with(block_m=-1),
    _with(block_n=None),
    _with(block_k=[32]),
    _with(waves_m=0, dtype="f64"),
    _with(waves_n={"a": 1}),
    _with(dtype="f64"),
    _with(dtype=None),
    _with(dtype="F16"),
    _with(out="fp8"),
    _with(out=32),
    _with(layout_a="column"),
    _with(layout_b=None),
    _with(layout_a='say "x"'),
    _with(bias=0),
    _with(bias="true"),
    _with(bias=None),
    _with(activation="gelu"),
    _with(residual="before"),
    _with(scale=2),
    _with(scale="0"),
    _with(scale="1e39"),
    _with(m=1 << 20, n=1 << 12, out="f32", residual="after_activation"),
    _with(mma="16x16x8"),
    _with(mma=None),
    _with(mma=["16x16x16"]),
    _with(dtype="fp8"),
    _with(dtype="bf16", mma="16x16x64"),
    _with(block_m=80),
    _with(block_n=40, waves_n=1),
    _with(block_k=24),
    _with(mma="32x32x16", block_m=64, waves_m=4),
    # Tile sizes past an i32: C++ truncated them to int, and waves x the mma's size overflowed int64.
    _with(block_m=2**31 * 16),
    _with(waves_m=2**62),
    _with(waves_n=2**31),
    _with(block_k=2**63 - 1),
    # m, n and k past an i32, and tensors past 2**31 - 1 bytes (A, B, C, the
    # bias; each naming the size to cut, or two when neither alone will do).
    _with(m=2**31),
    _with(n=2**62),
    _with(k=2**63 - 1),
    _with(m=-(2**63)),
    _with(m=2**20, k=2**10),
    _with(m=1, k=2**30),
    _with(m=2**16, k=2**16, layout_a="col"),
    _with(m=2**31 - 1, k=2**31 - 1, n=2**31 - 1, out="f32"),
    _with(n=2**20, k=2**10, out="f16", layout_b="col"),
    _with(m=2**19, n=2**10),
    _with(m=1, n=2**29, k=1, out="f16", bias=True, activation="relu"),
    # Integers beyond 64 bits, which the C++ engine reads as they are.
    _with(m=2**63),
    _with(n=2**64 + 5),
    _with(k=-(2**63) - 1),
    _with(block_m=2**70),
    _with(waves_n=-(10**30)),
]
GOOD = [
    BASE,
    _with(layout_a="col", layout_b="col", bias=True, activation="relu", out="bf16"),
    _with(dtype="fp8", mma="16x16x32", block_k=64),
    _with(mma="32x32x8", block_m=64, block_n=32, waves_n=1, block_k=8),
    _with(block_m=(2**31 - 1) // 16 * 16, waves_m=1, block_n=16 * 3, waves_n=3),  # a block_m just under 2**31
    # The largest A, the largest bias and the longest row of A the offsets address.
    _with(m=(2**31 - 1) // 80, n=16, out="f16"),
    _with(m=1, n=(2**31 - 1) // 4, k=1, out="f16", bias=True, activation="relu"),
    _with(m=1, n=1, k=(2**31 - 1) // 2),
    *(c.spec.to_json() for c in cases()),
]
# spec_for: every row, an arch or type without a row, options, and a bad problem.
TILES = [
    *([a, 300, 200, 64, d, "f32", {}] for a, d in tiles.TILES),
    ["gfx90a", 16, 16, 16, "f16", "f16", {}],
    ["gfx942", 16, 16, 16, "fp8", "f32", {}],
    ["gfx9999", 16, 16, 16, "f16", "f16", {}],
    ["gfx950", 64, 64, 64, "bf16", "f16", {"layout_a": "col", "bias": True, "activation": "relu"}],
    ["gfx942", 64, 64, 64, "f16", "f32", {"activation": "gelu_erf", "residual": "after_activation", "scale": "0.5"}],
    ["gfx1201", 64, 64, 64, "f16", "f16", {"layout_b": "cols"}],
    ["gfx1250", 0, 64, 64, "f16", "f16", {}],
]


def _make(request):
    if "spec" in request:
        return GemmSpec.from_json(request["spec"])
    arch, m, n, k, dtype, out, options = request["tile"]
    return tiles.spec_for(arch, m, n, k, dtype, out, **options)


TestSpecParity = harness.spec_parity(
    DUMP, BAD, GOOD, _make, wrap=lambda spec: {"spec": spec}, extra=[{"tile": t} for t in TILES]
)


def test_every_tile_lookup_as_python(tmp_path_factory):
    kinds = set()
    for request, got in zip(TILES, TestSpecParity.answers(tmp_path_factory)[len(BAD) + len(GOOD) :]):
        want = harness.python(_make, {"tile": request})
        kinds.add(want[0] if want[0] == "ok" else want[1][0])
        harness.check(request, got, want)
    assert kinds == {"ok", "TileError", "SpecError"}  # the list reaches every outcome
