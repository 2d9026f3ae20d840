"""conv_fwd_split_k_reduce: what its cases cover, its spec's errors, the
lane vectors and bias paths in the IR, and that the numeric check fails on a
wrong reduce."""

import dataclasses
import math
import re

import numpy as np
import pytest

from conv import split_k_reduce
from conv.spec import ConvSpec, SpecError
from conv.reduce_spec import ReduceSpec, ReduceSpecError, vector_width
from conv.split_k_reduce import FAMILY, Channels, build, channels_of, numeric_check, reduce_kernel
from family.bound import Expected
from family.family import Case, Refusal
from interp.interp import run
from ir.printer import print_kernel
from tile.gemm import spec_epilogue

CASES = {c.id: c for c in FAMILY.cases}
ARCHS = {"gfx942", "gfx950", "gfx1201", "gfx1250"}


def _bias_path(spec):
    """Which of _bias's three paths a bias case takes."""
    v, ch = vector_width(spec.elements), channels_of(spec.conv)
    if ch.inner == 1 and ch.count % v == 0:
        return "wide"
    return "shared" if ch.inner % v == 0 else "each"


def test_cases_cover_types_layouts_splits_bias_and_edges():
    assert len(CASES) >= 40
    for arch in ARCHS:
        specs = [c.spec for c in FAMILY.cases if c.arch == arch]
        assert len(specs) >= 10, arch
        assert {s.conv.dtype for s in specs} == {"f16", "bf16", "f32"}, arch
        assert {s.conv.layout for s in specs} == {"NHWC", "NCHW"}, arch
        assert {s.conv.dims for s in specs} == {2, 3}, arch
        splits = {s.split_k for s in specs}
        # 2 to 16 slices of y; dw's two-stage split takes up to 64.
        assert 2 in splits and max(splits) == 64 and any(x % 2 for x in splits), arch
        assert {s.tensor for s in specs} == {"y", "dw"}, arch
        assert max(s.split_k for s in specs if s.tensor == "y") == 16, arch
        assert {s.conv.bias for s in specs} == {True, False}, arch
        assert {vector_width(s.elements) for s in specs} == {1, 2, 4}, arch
        assert {_bias_path(s) for s in specs if s.conv.bias} == {"wide", "shared", "each"}, arch
        blocks = [s.elements / (split_k_reduce.WORKGROUP * vector_width(s.elements)) for s in specs]
        assert (
            any(b < 1 for b in blocks)
            and any(b > 1 and b != int(b) for b in blocks)
            and any(b == int(b) for b in blocks)
        ), arch


def _ir(case_id):
    return print_kernel(build(CASES[case_id]))


def test_one_wide_load_per_slice_and_one_wide_store():
    text = _ir("video_3d_f16_s8_gfx1201")  # E = 768: 4 per lane
    assert len(re.findall(r"mem.load\(%\d+\) : vector<4xf32>", text)) == 8
    assert len(re.findall(r"mem.store\(", text)) == 1 and "vector.build" in text
    assert len(re.findall(r"scf.if", text)) == 1  # one bounds check
    text = _ir("two_wide_bias_f32_s2_gfx942")  # E = 54: 2 per lane, bias of 2 consecutive channels
    assert len(re.findall(r"mem.load\(%\d+\) : vector<2xf32>", text)) == 3
    text = _ir("odd_elements_f32_s16_gfx950")  # E = 125: one per lane
    assert "vector<" not in text and len(re.findall(r"mem.load", text)) == 16


def test_bias_loads_per_path():
    def loads(text):
        return re.findall(r"mem.load\(%\d+\) : (\S+)", text)

    assert loads(_ir("resnet_1x1_bias_f16_s2_gfx942")) == ["vector<4xf32>"] * 3  # wide
    assert loads(_ir("nchw_bias_bf16_s3_gfx942")) == ["vector<4xf32>"] * 3 + ["f32"]  # one channel per vector
    assert loads(_ir("nchw_odd_pixels_bias_f16_s2_gfx942")) == ["vector<4xf32>"] * 2 + ["f32"] * 4  # each
    assert loads(_ir("nhwc_k6_bias_bf16_s4_gfx942")) == ["vector<4xf32>"] * 4 + ["f32"] * 4


def test_spec_json_and_errors():
    spec = CASES["nchw_bias_bf16_s3_gfx1250"].spec
    assert ReduceSpec.from_json(spec.to_json()) == spec
    assert ReduceSpec(spec.conv.to_json(), np.int32(3)) == spec
    fields = r"ReduceSpec: expected a JSON object with the fields conv, split_k and optionally tensor, got \{'conv'"
    with pytest.raises(ReduceSpecError, match=fields):
        ReduceSpec.from_json({"conv": spec.conv.to_json()})
    with pytest.raises(ReduceSpecError, match=r"ReduceSpec.conv: expected a ConvSpec, got 'NHWC'"):
        ReduceSpec("NHWC", 2)
    for bad in (1, 0, True, "2", None):
        with pytest.raises(
            ReduceSpecError,
            match=r"ReduceSpec.split_k: expected an int of at least 2, got .*; an unsplit layer has no reduce",
        ):
            dataclasses.replace(spec, split_k=bad)
    big = ConvSpec(1, 16, 1024, (512, 1024), (1, 1))
    with pytest.raises(
        SpecError,
        match=r"ReduceSpec.split_k: expected every tensor at most 2147483647 bytes \(2\*\*31 - 1: .*\), got the f32 workspace \(2, 1, 512, 1024, 1024\) of 4294967296 bytes; take a smaller split",
    ):
        ReduceSpec(big, 2)
    with pytest.raises(SpecError, match=r"of 2147483648 bytes"):  # exactly 2 GiB: refused
        ReduceSpec(dataclasses.replace(big, spatial=(256, 1024)), 2)
    assert ReduceSpec(dataclasses.replace(big, spatial=(255, 1024)), 2).split_k == 2  # just under: taken
    assert issubclass(ReduceSpecError, SpecError) and issubclass(ReduceSpecError, Refusal)


def _run(case, kernel=None):
    p = numeric_check(case, np.random.default_rng(3))
    run(kernel or build(case), p.grid, p.args)
    return p.decode(p.args[1]), p.expected[1], p


def test_numbers_and_the_check_can_fail():
    case = CASES["nchw_odd_pixels_bias_f16_s2_gfx1201"]
    got, want, p = _run(case)
    want.check(got, case.id)
    assert (want.values == 0).mean() > 0.2 and (want.values > 0).mean() > 0.2  # relu clips some, keeps others
    s, c = case.spec, case.spec.conv
    # One slice short; the bias at the channels-last channel (the wrong layout).
    short = reduce_kernel(
        "short", case.arch, s.elements, s.split_k - 1, c.dtype, channels_of(c), False, spec_epilogue(c)
    )
    got, want, p = _run(case, short)
    assert want.misses(got).any()
    wrong_layout = reduce_kernel(
        "nhwc", case.arch, s.elements, s.split_k, c.dtype, Channels(c.k, 1), False, spec_epilogue(c)
    )
    got, want, p = _run(case, wrong_layout)
    assert want.misses(got).any()
    # An output left unwritten is NaN.
    p = numeric_check(CASES["partial_workgroup_bf16_s2_gfx942"], np.random.default_rng(1))
    assert np.isnan(p.decode(p.args[1])).all()


def test_reduce_kernel_without_channels_is_a_plain_sum():
    # What wgrad's two-stage split calls: no bias argument, no relu (negative sums stay).
    kernel = reduce_kernel("wgrad_like", "gfx950", 4 * 9 * 8 * 6, 4, "bf16")
    assert [a.name for a in kernel.args] == ["ws", "y"]
    rng = np.random.default_rng(0)
    ws = rng.standard_normal((4, 4 * 9 * 8 * 6)).astype(np.float32)
    y = np.zeros(4 * 9 * 8 * 6, np.uint16)
    run(kernel, split_k_reduce.grid(ws.shape[1]), [ws, y])
    got = (y.astype(np.uint32) << 16).view(np.float32)
    ws64 = ws.astype(np.float64)
    Expected(ws64.sum(axis=0), np.abs(ws64).sum(axis=0), 4, "bf16").check(got, "the sum")
    assert (got < 0).any()


def test_a_weight_gradients_reduce_finishes_dw():
    # conv_igemm_wgrad's two-stage split: the workspace slices and the output are dw's shape
    # (16 x 3 x 3 x 8 = 1152 elements), not y's (2 x 7 x 7 x 16 = 1568).
    conv = ConvSpec(2, 8, 16, (7, 7), (3, 3), pad=(1, 1))
    spec = ReduceSpec(conv, 3, "dw")
    assert (spec.shape, spec.elements) == ((16, 3, 3, 8), 1152) and math.prod(conv.output_shape()) == 1568
    assert spec.to_json() == {"conv": conv.to_json(), "split_k": 3, "tensor": "dw"}
    assert ReduceSpec.from_json(spec.to_json()) == spec
    assert "tensor" not in ReduceSpec(conv, 3).to_json()  # the default, "y", is left out
    case = Case("dw", "gfx942", spec)
    got, want, p = _run(case)
    assert p.args[0].shape == (3, 16, 3, 3, 8) and p.grid == split_k_reduce.grid(1152)
    want.check(got, case.id)
    # One slice short: the check fails.
    got, want, p = _run(case, reduce_kernel("short", case.arch, 1152, 2, conv.dtype))
    assert want.misses(got).any()


def test_a_weight_gradients_reduce_refuses_an_epilogue_and_an_unknown_tensor():
    conv = ConvSpec(1, 8, 16, (7, 7), (3, 3), pad=(1, 1), bias=True)
    why = r"ConvSpec.bias: expected False \(a weight gradient's reduce applies no epilogue\), got True; drop bias"
    with pytest.raises(ReduceSpecError, match=why):
        ReduceSpec(conv, 2, "dw")
    with pytest.raises(ReduceSpecError, match=r"ReduceSpec.tensor: expected one of y, dw, got 'w'"):
        ReduceSpec(dataclasses.replace(conv, bias=False), 2, "w")
    with pytest.raises(ReduceSpecError, match=r"fields conv, split_k and optionally tensor, got"):
        ReduceSpec.from_json({"conv": conv.to_json(), "split_k": 2, "tensr": "dw"})
