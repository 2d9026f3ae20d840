"""GemmSpec validation: every bad field is named, with the value and what is allowed."""

import json
import math

import numpy as np
import pytest

from gemm.spec import GemmSpec, SpecError
from tile.tile import Tile

TILE = dict(mma="16x16x16", block_m=128, block_n=128, block_k=32, waves_m=2, waves_n=2)
# A spec's JSON: the problem's fields and the tile's beside them.
BASE = dict(m=100, n=72, k=40, dtype="f16", out="f32", **TILE)


def spec(**fields):
    """GemmSpec(...) of BASE with `fields` replaced, its tile built from the tile's fields."""
    fields = {**BASE, **fields}
    tile = Tile(**{name: fields.pop(name) for name in TILE})
    return GemmSpec(tile=tile, **fields)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(m=0), "GemmSpec.m: expected a positive int, got 0"),
        (dict(k=2.0), "GemmSpec.k: expected a positive int, got 2.0"),
        (dict(waves_n=True), "GemmSpec.tile.waves_n: expected a positive int, got True"),
        (dict(dtype="f32"), "GemmSpec.dtype: expected one of f16, bf16, fp8, got 'f32'"),
        (dict(out="fp8"), "GemmSpec.out: expected one of f16, bf16, f32, got 'fp8'"),
        (dict(layout_a="row_major"), "GemmSpec.layout_a: expected one of row, col, got 'row_major'"),
        (dict(layout_b="T"), "GemmSpec.layout_b: expected one of row, col, got 'T'"),
        (dict(bias="yes"), "GemmSpec.bias: expected True or False, got 'yes'"),
        (
            dict(activation="silu"),
            "GemmSpec.activation: expected one of none, relu, relu6, gelu_tanh, gelu_erf, got 'silu'",
        ),
        (
            dict(residual="after"),
            "GemmSpec.residual: expected one of none, before_activation, after_activation, got 'after'",
        ),
        (
            dict(scale="1/8"),
            "GemmSpec.scale: expected a positive decimal string such as '0.5' (finite and above 0 as f32), got '1/8'",
        ),
        (
            dict(mma="16x16x8"),
            "GemmSpec.tile.mma: expected a matrix-core shape MxNxK: one of 16x16x16, 16x16x32, 32x32x8, 32x32x16, got '16x16x8'",
        ),
        (
            dict(dtype="fp8"),
            "GemmSpec.tile.mma: expected a matrix-core shape of fp8 inputs: one of 16x16x32, got '16x16x16'",
        ),
        (
            dict(block_m=80),
            "GemmSpec.tile.block_m: expected a multiple of waves_m (2) x the mma's M (16) = 32, got 80",
        ),
        (
            dict(waves_n=3),
            "GemmSpec.tile.block_n: expected a multiple of waves_n (3) x the mma's N (16) = 48, got 128",
        ),
        (dict(block_k=24), "GemmSpec.tile.block_k: expected a multiple of the mma's K (16) = 16, got 24"),
        # The tile is checked first, as the spec is built from it.
        (dict(m=0, block_k=24), "GemmSpec.tile.block_k: expected a multiple of the mma's K (16) = 16, got 24"),
    ],
)
def test_bad_field_is_named(kwargs, message):
    with pytest.raises(SpecError) as err:
        GemmSpec.from_json({**BASE, **kwargs})
    assert str(err.value) == message and err.value.field == message.split(":")[0]


def test_a_tile_that_is_not_a_tile_is_refused():
    fields = {k: v for k, v in BASE.items() if k not in TILE}
    with pytest.raises(SpecError, match=r"^GemmSpec.tile: expected a tile.tile.Tile, got \{'mma': '16x16x16'"):
        GemmSpec(tile=TILE, **fields)


MAX = 2**31 - 1
INT32 = "a positive int at most 2147483647 (2**31 - 1: the kernel takes m, n and k as i32)"
OFFSETS = f"expected every tensor at most {MAX} bytes (2**31 - 1: the kernel's offsets are 32-bit)"


@pytest.mark.parametrize(
    "kwargs,message",
    [
        # m, n and k are the kernel's i32 arguments.
        (dict(m=2**31), f"GemmSpec.m: expected {INT32}, got 2147483648"),
        (dict(k=2**31), f"GemmSpec.k: expected {INT32}, got 2147483648"),
        (dict(n=2**63), f"GemmSpec.n: expected {INT32}, got 9223372036854775808"),
        (dict(m=2**64 + 5), f"GemmSpec.m: expected {INT32}, got 18446744073709551621"),
        # Each tensor's byte offsets are i32: A, then B, C and the bias, each
        # naming the size to cut (the first of its two while a single row fits).
        (
            dict(m=2**20, k=2**10),
            f"GemmSpec.m: {OFFSETS}, got A (1048576, 1024) of 2147483648 bytes; use m at most 1048575",
        ),
        (
            dict(m=1, k=2**30),
            f"GemmSpec.k: {OFFSETS}, got A (1, 1073741824) of 2147483648 bytes; use k at most 1073741823",
        ),
        (
            dict(m=2**16, k=2**16, layout_a="col"),
            f"GemmSpec.m: {OFFSETS}, got A (65536, 65536) of 8589934592 bytes; use m at most 16383",
        ),
        (
            dict(m=2**31 - 1, k=2**31 - 1),
            f"GemmSpec.m: {OFFSETS}, got A (2147483647, 2147483647) of 9223372028264841218 bytes; use smaller m and k",
        ),
        (
            dict(n=2**20, k=2**10, out="f16"),
            f"GemmSpec.n: {OFFSETS}, got B (1024, 1048576) of 2147483648 bytes; use n at most 1048575",
        ),
        (
            dict(m=2**19, n=2**10),
            f"GemmSpec.m: {OFFSETS}, got C (524288, 1024) of 2147483648 bytes; use m at most 524287",
        ),
        (
            dict(m=1, n=2**29, k=1, out="f16", bias=True, activation="relu"),
            f"GemmSpec.n: {OFFSETS}, got the bias (536870912,) of 2147483648 bytes; use n at most 536870911",
        ),
    ],
)
def test_a_size_the_kernels_i32_cannot_address_is_refused_naming_the_field(kwargs, message):
    with pytest.raises(SpecError) as err:
        spec(**kwargs)
    assert str(err.value) == message


def test_the_largest_tensors_the_offsets_address_are_taken():
    rows = MAX // (2 * 40)  # A's rows of k = 40 f16 under 2**31 bytes
    assert 2 * math.prod(spec(m=rows, n=16, out="f16").a_shape()) <= MAX < 2 * (rows + 1) * 40
    assert spec(m=1, n=MAX // 4, k=1, out="f16", bias=True, activation="relu").n == MAX // 4
    assert spec(m=1, n=1, k=MAX // 2).k == MAX // 2


def test_defaults_shapes_and_grid():
    s = spec()
    assert (s.layout_a, s.layout_b, s.bias, s.activation, s.residual, s.scale) == (
        "row",
        "row",
        False,
        "none",
        "none",
        "1",
    )
    assert s.op == "mma_16x16x16_f16_f32" and s.tile.mma_shape == (16, 16, 16) and s.tile.waves == 4
    assert s.a_shape() == (100, 40) and s.b_shape() == (40, 72) and s.grid() == (1, 1, 1)
    t = spec(m=300, n=129, layout_a="col", layout_b="col")
    assert t.a_shape() == (40, 300) and t.b_shape() == (129, 40) and t.grid() == (2, 3, 1)


def test_to_json_is_every_field_and_reads_back_equal():
    s = spec(layout_b="col", bias=True, activation="relu")
    want = {
        **BASE,
        "layout_a": "row",
        "layout_b": "col",
        "bias": True,
        "activation": "relu",
        "residual": "none",
        "scale": "1",
    }
    assert s.to_json() == want and list(s.to_json()) == list(want)  # the fields in declaration order, the tile's flat
    back = GemmSpec.from_json(json.loads(json.dumps(s.to_json())))
    assert back == s and hash(back) == hash(s)


def test_numpy_ints_make_the_equal_spec():
    s = spec(m=np.int64(100), n=np.int32(72), k=np.uint8(40), waves_m=np.int16(2))
    assert s == spec() and hash(s) == hash(spec())
    assert all(type(getattr(s, f)) is int for f in ("m", "n", "k")) and type(s.tile.waves_m) is int


@pytest.mark.parametrize(
    "obj,message",
    [
        (
            [1, 2],
            "GemmSpec: expected a JSON object with the fields m, n, k, dtype, out, mma, block_m, block_n, block_k, waves_m, waves_n, layout_a, layout_b, bias, activation, residual, scale, got [1, 2]",
        ),
        (
            {**BASE, "lda": 4},
            "GemmSpec.lda: expected one of the fields m, n, k, dtype, out, mma, block_m, block_n, block_k, waves_m, waves_n, layout_a, layout_b, bias, activation, residual, scale, got the unknown field 'lda'",
        ),
        (
            {k: v for k, v in BASE.items() if k != "mma"},
            "GemmSpec.mma: expected a value (the field is required), got none",
        ),
    ],
)
def test_bad_json_is_named(obj, message):
    with pytest.raises(SpecError) as err:
        GemmSpec.from_json(obj)
    assert str(err.value) == message
