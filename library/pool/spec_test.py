"""PoolSpec: defaults, output sizes, JSON round trips and every refusal's message."""

import pytest

from pool.spec import PoolSpec, SpecError


def test_defaults_stride_is_the_window_pad_end_the_pad():
    s = PoolSpec(1, 8, [7, 9], "max", [3, 3], pad=[1, 2])
    assert (s.stride, s.pad, s.pad_end, s.layout, s.dtype, s.count_pad) == (
        (3, 3),
        (1, 2),
        (1, 2),
        "NHWC",
        "f16",
        False,
    )
    assert s.output == (3, 4)  # (7 + 2 - 3) // 3 + 1, (9 + 4 - 3) // 3 + 1


def test_resnet50_pools():
    assert PoolSpec(1, 64, (112, 112), "max", (3, 3), (2, 2), (1, 1)).output == (56, 56)
    assert PoolSpec(1, 2048, (7, 7), "avg", (7, 7)).output_shape() == (1, 1, 1, 2048)


def test_one_sided_padding_and_3d_nchw_shapes():
    s = PoolSpec(2, 3, (4, 5, 6), "avg", (2, 2, 2), (2, 2, 2), (0, 1, 0), (1, 0, 0), count_pad=True, layout="NCHW")
    # d: (4 + 0 + 1 - 2) // 2 + 1, h: (5 + 1 + 0 - 2) // 2 + 1, w: (6 - 2) // 2 + 1
    assert s.output == (2, 3, 3) and s.input_shape() == (2, 3, 4, 5, 6) and s.output_shape() == (2, 3, 2, 3, 3)


def test_json_round_trip_fills_defaults():
    s = PoolSpec.from_json({"n": 1, "c": 3, "spatial": [5, 5], "kind": "avg", "window": [2, 2]})
    assert s.to_json() == {
        "n": 1,
        "c": 3,
        "spatial": [5, 5],
        "kind": "avg",
        "window": [2, 2],
        "stride": [2, 2],
        "pad": [0, 0],
        "pad_end": [0, 0],
        "count_pad": False,
        "layout": "NHWC",
        "dtype": "f16",
    }
    assert PoolSpec.from_json(s.to_json()) == s


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"n": 0}, r"PoolSpec.n: expected a positive int at most 2147483647 \(an i32 in the kernel\), got 0"),
        ({"spatial": (5,)}, r"PoolSpec.spatial: expected \[h, w\] or \[d, h, w\], got \(5,\)"),
        ({"stride": (0, 1)}, r"PoolSpec.stride: expected a list of 2 ints from 1 to 2147483647"),
        ({"kind": "sum"}, r"PoolSpec.kind: expected one of max, avg, got 'sum'"),
        ({"layout": "nhwc"}, r"PoolSpec.layout: expected one of NHWC, NCHW, got 'nhwc'"),
        ({"count_pad": True}, r"PoolSpec.count_pad: expected False for a max pool"),
        ({"pad": (3, 0)}, r"PoolSpec.pad: expected each below the window \[3, 3\]"),
        ({"pad_end": (0, 3)}, r"PoolSpec.pad_end: expected each below the window \[3, 3\]"),
        ({"spatial": (2, 9)}, r"PoolSpec.window: expected a window that fits the padded input in dimension 0"),
        ({"n": 2**20, "c": 2048}, r"PoolSpec.n: expected every tensor at most 2147483647 bytes .* use n at most 6472"),
    ],
)
def test_refusals_name_the_field_and_the_fix(fields, message):
    base = {"n": 1, "c": 8, "spatial": (9, 9), "kind": "max", "window": (3, 3)}
    with pytest.raises(SpecError, match=message):
        PoolSpec(**{**base, **fields})


def test_unknown_json_field():
    with pytest.raises(SpecError, match=r"PoolSpec.global: expected one of the fields n, c, spatial"):
        PoolSpec.from_json({"n": 1, "c": 8, "spatial": [9, 9], "kind": "avg", "window": [9, 9], "global": True})
