"""IgemmSpec and conv_igemm_fwd's tile table in C++ (igemm_spec_dump)
against Python's IgemmSpec.from_json and igemm_tiles.spec_for on the same
JSON: every refusal with the same class, field, value and allowed values
(each engine words its own message), every accepted spec's to_json equal
(parity/harness.py)."""

import os


from conv import igemm_tiles
from conv.cases import igemm_fwd_cases
from conv.igemm_tiles import IgemmSpec
from conv.spec import ConvSpec
from parity import harness

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "igemm_spec_dump")

CONV = {"n": 2, "c": 16, "k": 32, "spatial": [9, 9], "filter": [3, 3], "pad": [1, 1], "dtype": "f16"}
BASE = {"conv": CONV, "mma": "16x16x16", "block_m": 128, "block_n": 64, "block_k": 32, "waves_m": 2, "waves_n": 2}


def _with(**fields):
    return {**BASE, **fields}


def _conv(**fields):
    return _with(conv={**CONV, **fields})


# One spec per check from_json and __post_init__ make, in their order, and
# values whose repr differs by type (True vs 1, None, lists, quotes).
BAD = [
    [1, 2],
    "x",
    None,
    3,
    True,
    {},
    {k: v for k, v in BASE.items() if k != "waves_n"},
    _with(mmas="16x16x16"),
    _with(**{"it's": 1}),
    _with(conv=None),
    _with(conv=[1, 2]),
    _with(conv="NHWC"),
    _conv(n=0),
    _conv(groups=3),
    _conv(extra=1),
    _conv(dtype="f32"),
    _conv(dtype="f32", n=0),
    _conv(n=40000, c=64, spatial=[224, 224]),
    _conv(k=8192, c=8192, filter=[7, 7], spatial=[7, 7], pad=[3, 3]),
    _conv(n=8000, c=1, k=512, spatial=[512, 512], filter=[1, 1], pad=[0, 0]),
    _with(block_m=0),
    _with(block_n=True),
    _with(block_k="32"),
    _with(waves_m=None),
    _with(waves_n=[2]),
    _with(block_m=-1, mma="x"),
    _with(mma="16x16x8"),
    _with(mma=None),
    _with(mma=["16x16x16"]),
    _with(mma=16),
    _conv(dtype="bf16") | {"mma": "32x32x32"},
    # Tile sizes past an i32 (C++ would truncate them to int, or overflow a product).
    _with(block_m=2**31),
    _with(waves_n=2**62),
    _with(block_k=2**63 - 1),
    # Integers beyond 64 bits, which the C++ engine reads as they are.
    _with(block_m=2**63),
    _with(waves_m=-(2**64)),
    _with(split_k=2**63),
    _conv(n=2**63),
    # split_k: not a positive int, more splits than k steps (144 = 5 steps of 32), a workspace past 2 GiB.
    # A block that is not a whole number of its waves' matrix ops.
    _with(mma="32x32x16", block_m=7, block_n=3, block_k=5, waves_m=1, waves_n=9),
    _with(block_m=2**31 - 1, waves_n=2**31 - 1),
    _with(block_n=80),
    _with(block_k=24),
    _with(split_k=0),
    _with(split_k=True),
    _with(split_k="2"),
    _with(split_k=None),
    _with(split_k=6),
    _conv(n=1, k=1024, spatial=[512, 1024]) | {"split_k": 2},
    # row_runs: not a bool; a layer whose filter rows are not runs (a row of 48 > the k step of
    # 32, NCHW, groups, dilation in x, more than 31 rows); split.
    _with(row_runs=1),
    _with(row_runs=None),
    _with(row_runs="true"),
    _with(row_runs=True),
    _conv(c=3, layout="NCHW") | {"row_runs": True},
    _conv(c=4, groups=2) | {"row_runs": True},
    _conv(c=3, dilation=[1, 2]) | {"row_runs": True},
    _conv(c=3, spatial=[9, 9, 9], filter=[8, 4, 3], pad=[0, 0, 0]) | {"row_runs": True},
    _conv(c=3) | {"row_runs": True, "split_k": 2},
]
GOOD = [
    BASE,
    _with(split_k=1),  # written back without the field, as an unsplit spec always was
    _with(split_k=5),
    _with(row_runs=False),  # written back without the field
    _conv(c=3, filter=[7, 7], stride=[2, 2], pad=[3, 3]) | {"row_runs": True},
    _conv(c=6, dilation=[2, 1]) | {"row_runs": True, "split_k": 1},
    _with(mma="32x32x16", block_m=32, block_n=288, block_k=16, waves_m=1, waves_n=9),
    # The largest tile sizes the spec takes: blocks of whole matrix ops.
    _with(block_m=(2**31 - 1) // 32 * 32, block_n=(2**31 - 1) // 16 * 16, waves_n=(2**31 - 1) // 16),
    _conv(layout="NCHW", dtype="bf16", bias=True, activation="relu", groups=4, stride=[2, 1], dilation=[1, 2]),
    _conv(spatial=[4, 5, 6], filter=[1, 3, 3], pad=[0, 1, 1]) | {"mma": "16x16x32"},
    *(c.spec.to_json() for c in igemm_fwd_cases()),
]
# spec_for: every row, an arch without a row, and a conv the spec refuses.
TILES = [
    *([arch, CONV] for arch in igemm_tiles.TILES),
    ["gfx90a", CONV],
    ["gfx9999", {**CONV, "dtype": "bf16"}],
    ["gfx942", {**CONV, "dtype": "f32"}],
]


def _make(request):
    if "spec" in request:
        return IgemmSpec.from_json(request["spec"])
    arch, conv = request["tile"]
    return igemm_tiles.spec_for(arch, ConvSpec.from_json(conv))


# The refusals' classes: IgemmSpecError, or ConvSpec's SpecError for a bad conv or workspace.
TestSpecParity = harness.spec_parity(
    DUMP,
    BAD,
    GOOD,
    _make,
    classes=("SpecError", "IgemmSpecError"),
    wrap=lambda spec: {"spec": spec},
    extra=[{"tile": t} for t in TILES],
)


def test_every_tile_lookup_as_python(tmp_path_factory):
    kinds = set()
    for request, got in zip(TILES, TestSpecParity.answers(tmp_path_factory)[len(BAD) + len(GOOD) :]):
        want = harness.python(_make, harness.sorted_json({"tile": request}))
        kinds.add(want[0] if want[0] == "ok" else want[1][0])
        harness.check(request, got, want)
    assert kinds == {"ok", "IgemmSpecError"}  # the list reaches both outcomes
