"""conv_igemm_fwd's cases, tiles, refusals and kernels: what the issue asks
the cases to cover, the errors a user can cause, and that the numeric check
can fail."""

import dataclasses
import math

import numpy as np
import pytest

from conv import common, igemm_fwd
from conv.igemm_fwd import FAMILY, build, numeric_check
from conv.igemm_tiles import TILES, IgemmSpec, IgemmSpecError, spec_for
from conv.spec import MAX_TENSOR_BYTES, ConvSpec, SpecError
from family.family import Case
from interp.interp import run

CASES = {c.id: c for c in FAMILY.cases}
ARCHS = {"gfx942", "gfx950", "gfx1201", "gfx1250"}


def test_at_least_ten_problems_on_each_arch():
    assert len(CASES) >= 40
    for arch in ARCHS:
        assert sum(c.arch == arch for c in FAMILY.cases) >= 10, arch


def test_coverage_of_the_problem_fields():
    for arch in ARCHS:
        convs = [c.spec.conv for c in FAMILY.cases if c.arch == arch]
        assert {c.dims for c in convs} == {2, 3}, arch
        assert {c.layout for c in convs} == {"NHWC", "NCHW"}, arch
        assert {c.dtype for c in convs} == {"f16", "bf16"}, arch
        assert (
            any(max(c.stride) > 1 for c in convs)
            and any(max(c.dilation) > 1 for c in convs)
            and any(max(c.pad) > 0 for c in convs)
        ), arch
        assert any(c.groups > 1 and c.layout == "NHWC" for c in convs) and any(
            c.groups > 1 and c.layout == "NCHW" for c in convs
        ), arch
        assert any(c.bias for c in convs) and any(not c.bias for c in convs), arch


def test_edge_shapes():
    specs = [c.spec for c in FAMILY.cases if c.arch == "gfx942"]
    m_n_k = [s.gemm for s in specs]
    assert any(n % s.tile.block_n for s, (_, n, _) in zip(specs, m_n_k))  # K not a multiple of the tile
    assert any(k % s.tile.block_k for s, (_, _, k) in zip(specs, m_n_k))  # C x taps not a multiple of the k step
    assert any(s.conv.c_per_group % 8 for s in specs)  # C/groups off the 16-byte unit: per-element gather
    assert any(s.conv.filter == (1, 1) and s.conv.stride == (2, 2) for s in specs)  # 1x1 stride 2
    assert any(math.prod(s.conv.output) == 1 and s.conv.n == 1 for s in specs)  # a single output pixel
    # A filter as large as the padded input.
    assert any(all(f == x + 2 * p for f, x, p in zip(s.conv.filter, s.conv.spatial, s.conv.pad)) for s in specs)


def test_blocks_wholly_inside_and_the_vector_gather_are_exercised():
    for arch in ARCHS:
        mine = [c.spec for c in FAMILY.cases if c.arch == arch]
        whole = [s for s in mine if s.gemm[0] >= s.tile.block_m and s.gemm[1] >= s.tile.block_n]
        assert any(s.gemm[2] % s.tile.block_k for s in whole), arch  # the fast loop, then a k tail
        assert any(igemm_fwd._gather(s, 0).runs for s in whole), arch
        assert any(not igemm_fwd._gather(s, 0).runs for s in mine), arch
        assert (
            any(s.grid()[2] > 1 for s in mine)
            and any(s.grid()[1] > 1 for s in mine)
            and any(s.grid()[0] > 1 for s in mine)
        ), arch


def test_vector_gather_only_for_channels_last_whole_units():
    nhwc = spec_for("gfx942", ConvSpec(1, 16, 8, (4, 4), (3, 3)))
    assert igemm_fwd._gather(nhwc, 0).runs
    assert not igemm_fwd._gather(spec_for("gfx942", dataclasses.replace(nhwc.conv, c=12)), 0).runs
    assert not igemm_fwd._gather(spec_for("gfx942", dataclasses.replace(nhwc.conv, layout="NCHW")), 0).runs


def test_every_case_has_its_archs_tile_and_workgroup():
    for case in FAMILY.cases:
        s = case.spec
        assert s.tile == TILES[case.arch], case.id
    kernel = build(CASES["resnet_3x3_f16_gfx1201"])
    assert kernel.attrs["workgroup_size"] == [256, 1, 1] and kernel.name == "conv_igemm_fwd_resnet_3x3_f16_gfx1201"
    assert [a.name for a in kernel.args] == ["x", "w", "y"]
    assert [a.name for a in build(CASES["unet_3x3_odd_bias_gfx942"]).args] == ["x", "w", "y", "bias"]


def test_spec_json_round_trip_and_errors():
    spec = CASES["ncdhw_grouped_bf16_gfx950"].spec
    assert IgemmSpec.from_json(spec.to_json()) == spec
    with pytest.raises(
        IgemmSpecError, match=r"IgemmSpec: expected a JSON object with exactly the fields conv, mma, .*, got \{'conv'"
    ):
        IgemmSpec.from_json({"conv": spec.conv.to_json()})
    with pytest.raises(
        IgemmSpecError,
        match=r"IgemmSpec.conv.dtype: expected one of f16, bf16 \(matrix cores\), got 'f32'; conv_direct_fwd and conv_img2col compute an f32 forward convolution; no family computes an f32 data gradient",
    ):
        spec_for("gfx942", ConvSpec(1, 8, 8, (4, 4), (3, 3), dtype="f32"))
    with pytest.raises(
        IgemmSpecError,
        match=r"expected an arch with a tile \(gfx942, gfx950, gfx1201, gfx1250\), got 'gfx90a'; add a row",
    ):
        spec_for("gfx90a", spec.conv)
    with pytest.raises(
        IgemmSpecError,
        match=r"IgemmSpec.tile.mma: expected a matrix-core shape MxNxK: one of 16x16x16, 16x16x32, 32x32x8, 32x32x16, got '8x8x8'",
    ):
        IgemmSpec.from_json({**spec.to_json(), "mma": "8x8x8"})
    with pytest.raises(IgemmSpecError, match=r"IgemmSpec.tile.block_k: expected a positive int, got 0"):
        IgemmSpec.from_json({**spec.to_json(), "block_k": 0})
    with pytest.raises(IgemmSpecError, match=r"IgemmSpec.tile: expected a tile.tile.Tile, got \{'mma'"):
        dataclasses.replace(spec, tile=spec.tile.to_json())
    with pytest.raises(
        IgemmSpecError,
        match=r"IgemmSpec.tile.mma: expected a matrix-core shape gfx942 has for bf16, got '32x32x16'; take gfx942's tile from library/conv/igemm_tiles\.json",
    ):
        build(Case("x", "gfx942", spec))
    assert issubclass(IgemmSpecError, SpecError)


def test_the_largest_batch_conv_spec_takes_gets_its_tile():
    # ConvSpec refuses tensors over MAX_TENSOR_BYTES (spec_test checks both
    # sides); the largest batch it takes must still get a tile and a grid.
    per_sample = 2 * 56 * 56 * 64  # f16 NHWC input and output of a 3x3 pad-1 layer
    spec = spec_for("gfx942", ConvSpec(MAX_TENSOR_BYTES // per_sample, 64, 64, (56, 56), (3, 3), pad=(1, 1)))
    assert 2 * math.prod(spec.conv.input_shape()) <= MAX_TENSOR_BYTES
    assert spec.grid()[1] == -(-spec.gemm[0] // spec.tile.block_m)


def _run(case, args_from):
    """The case's kernel run on the problem of case `args_from`; (got, want, problem)."""
    p = numeric_check(args_from, np.random.default_rng(1))
    run(build(case), p.grid, p.args)
    return p.decode(p.args[2]), p.expected[2], p


def test_the_numeric_check_sees_padding_and_dilation():
    # 3x3, pad 2, dilation 2 and 3x3, pad 1, dilation 1 give the same output shape: only the taps differ.
    dilated = CASES["unet_dilated_bf16_gfx942"]
    plain = Case(
        "plain", "gfx942", spec_for("gfx942", dataclasses.replace(dilated.spec.conv, pad=(1, 1), dilation=(1, 1)))
    )
    got, want, p = _run(plain, dilated)
    assert want.misses(got).any()
    got, want, p = _run(dilated, dilated)
    want.check(got, "the kernel's output")


def test_relu_clips_some_outputs_and_keeps_others():
    got, want, p = _run(CASES["unet_3x3_odd_bias_gfx1250"], CASES["unet_3x3_odd_bias_gfx1250"])
    want.check(got, "the kernel's output")
    assert (want.values == 0).mean() > 0.2 and (want.values > 0).mean() > 0.2


def test_unwritten_outputs_fail_the_check():
    for name in ("resnet_1x1_f16_gfx942", "resnet_3x3_stride2_bf16_gfx1201"):
        p = numeric_check(CASES[name], np.random.default_rng(1))
        assert np.isnan(p.decode(p.args[2])).all()


# -- split-K ------------------------------------------------------------------------

SPLIT = [c for c in FAMILY.cases if c.spec.split_k > 1]


def test_split_cases_cover_archs_layouts_and_uneven_reductions():
    for arch in ARCHS:
        mine = [c.spec for c in SPLIT if c.arch == arch]
        assert len(mine) >= 5, arch
        assert {s.conv.layout for s in mine} == {"NHWC", "NCHW"}, arch
        assert {s.conv.dtype for s in mine} == {"f16", "bf16"}, arch
        assert any(s.gemm[2] % s.tile.block_k for s in mine), arch  # a partial last k step
        assert any(s.k_steps % s.split_k for s in mine), arch  # slices of unequal steps
        assert any(s.split_k == s.k_steps for s in mine), arch  # one step per split
        assert any(s.conv.groups > 1 for s in mine) and any(s.conv.dims == 3 for s in mine), arch


def test_k_slices_are_contiguous_whole_steps_covering_the_reduction():
    for case in SPLIT:
        s = case.spec
        slices = s.k_slices()
        assert len(slices) == s.split_k and slices[0][0] == 0 and slices[-1][1] == s.gemm[2], case.id
        for (_, end), (begin, _) in zip(slices, slices[1:]):
            assert end == begin and begin % s.tile.block_k == 0, case.id
        assert all(end > begin for begin, end in slices), case.id
        sizes = [-(-(end - begin) // s.tile.block_k) for begin, end in slices]
        assert max(sizes) - min(sizes) <= 1, case.id  # balanced


def test_a_split_kernel_writes_the_workspace_over_groups_times_splits():
    case = CASES["splitk_grouped_bf16_s2_gfx1201"]
    kernel = build(case)
    assert [a.name for a in kernel.args] == ["x", "w", "ws"]
    assert case.spec.grid()[2] == 2 * 2
    # A bias + relu layer's split kernel has no bias: the reduce kernel adds it.
    assert [a.name for a in build(CASES["splitk_nchw_odd_bias_s3_gfx942"]).args] == ["x", "w", "ws"]


def test_the_partial_sums_add_up_to_the_forward_convolution():
    # The slice reference (restricted weights) against the whole one: no slice lost or counted twice.
    for name in ("splitk_resnet_3x3_s4_gfx942", "splitk_nchw_odd_bias_s3_gfx942", "splitk_grouped_bf16_s2_gfx942"):
        p = numeric_check(CASES[name], np.random.default_rng(2))
        c = CASES[name].spec.conv
        x64, w64 = common.decode(p.args[0], c.dtype), common.decode(p.args[1], c.dtype)
        whole = common.reference(c, x64, w64, None)
        np.testing.assert_allclose(p.expected[2].values.sum(axis=0), whole, rtol=1e-12, atol=1e-12)


def test_the_split_numeric_check_fails_on_wrong_slices():
    case = CASES["splitk_resnet_3x3_s4_gfx950"]
    got, want, p = _run(case, case)
    want.check(got, "the kernel's output")
    assert want.misses(got[::-1]).any()  # slices in the wrong order
    # Equal (unbalanced) slices of the reduction are not the kernel's.
    k, block_k = case.spec.gemm[2], case.spec.tile.block_k
    equal = dataclasses.replace(case.spec, split_k=1)
    x64, w64 = common.decode(p.args[0], "f16"), common.decode(p.args[1], "f16")
    cut = [0, k // 4 // block_k * block_k, k // 2, 3 * k // 4, k]
    wrong = np.stack(
        [
            common.reference(equal.conv, x64, igemm_fwd.slice_weights(case.spec, w64, a, b), None)
            for a, b in zip(cut, cut[1:])
        ]
    )
    assert dataclasses.replace(want, values=wrong).misses(got).any()
    # An unwritten workspace is NaN.
    assert np.isnan(numeric_check(case, np.random.default_rng(1)).args[2]).all()


def test_split_spec_json_and_errors():
    spec = CASES["splitk_video_3d_s4_gfx1250"].spec
    assert spec.to_json()["split_k"] == 4 and IgemmSpec.from_json(spec.to_json()) == spec
    assert "split_k" not in spec_for("gfx942", spec.conv).to_json()  # an unsplit spec's JSON is as before the field
    with pytest.raises(
        IgemmSpecError,
        match=r"IgemmSpec.split_k: expected an int from 1 to 7 \(the reduction's 216 in k steps of 32: each split reduces whole steps\), got 8; take a split in that range",
    ):
        dataclasses.replace(spec, split_k=8)
    with pytest.raises(IgemmSpecError, match=r"IgemmSpec.split_k: expected an int from 1 to 7 .*, got 0"):
        dataclasses.replace(spec, split_k=0)
    assert dataclasses.replace(spec, split_k=np.int64(2)).split_k == 2
    big = ConvSpec(1, 16, 1024, (512, 1024), (3, 3), pad=(1, 1))
    with pytest.raises(
        SpecError,
        match=r"IgemmSpec.split_k: expected every tensor at most 2147483647 bytes .*, got the f32 workspace \(2, 1, 512, 1024, 1024\) of 4294967296 bytes; take a smaller split",
    ):
        dataclasses.replace(spec_for("gfx942", big), split_k=2)
