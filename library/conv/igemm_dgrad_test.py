"""conv_igemm_dgrad's cases, refusals and kernels: what the issue asks the
cases to cover (stride > 1 above all), the errors a user can cause, and that
the numeric check can fail (a stride mask gone wrong, unwritten outputs).
Strides, padding and dilation show in the numbers, and input pixels no
output reaches are exactly zero."""

import dataclasses
import math

import numpy as np
import pytest

from conv import igemm_dgrad
from conv.igemm_dgrad import FAMILY, build, grid, numeric_check
from conv.igemm_tiles import TILES, IgemmSpecError, spec_for
from conv.spec import ConvSpec, SpecError
from family.family import Case, Refusal
from interp import interp
from interp.interp import run
from ir import mma as M

CASES = {c.id: c for c in FAMILY.cases}
ARCHS = {"gfx942", "gfx950", "gfx1201", "gfx1250"}


def _on(arch):
    return [c.spec for c in FAMILY.cases if c.arch == arch]


def test_at_least_forty_cases_per_flavor():
    # llvm20 rejects gfx1250: the other three archs alone must give 40.
    assert sum(c.arch != "gfx1250" for c in FAMILY.cases) >= 40
    assert {c.arch for c in FAMILY.cases} == ARCHS
    assert len({len(_on(arch)) for arch in ARCHS}) == 1


def test_coverage_of_the_problem_fields():
    for arch in ARCHS:
        convs = [s.conv for s in _on(arch)]
        assert {c.dims for c in convs} == {2, 3}, arch
        assert {c.layout for c in convs} == {"NHWC", "NCHW"}, arch
        assert {c.dtype for c in convs} == {"f16", "bf16"}, arch
        assert any(max(c.dilation) > 1 for c in convs) and any(max(c.pad) > 0 for c in convs), arch
        assert any(c.groups > 1 and c.layout == "NHWC" for c in convs) and any(
            c.groups > 1 and c.layout == "NCHW" for c in convs
        ), arch


def test_strided_cases_cover_the_trap():
    convs = [s.conv for s in _on("gfx942")]
    strided = [c for c in convs if max(c.stride) > 1]
    assert len(strided) >= 10
    assert {2, 3} <= {s for c in strided for s in c.stride}
    assert any(
        max(c.stride) == 3 and max(c.pad) > 0 and max(c.dilation) > 1 for c in strided
    )  # stride 3, padding, dilation
    assert any(c.filter == (1, 1) and c.stride == (2, 2) for c in strided)  # 1x1 stride 2
    assert (
        any(c.dims == 3 for c in strided)
        and any(c.layout == "NCHW" for c in strided)
        and any(c.groups > 1 for c in strided)
    )
    assert any(len(set(c.stride)) > 1 for c in strided)  # different strides per dimension
    # An input whose last pixels no output pixel reaches (they must be written as zero).
    assert any(
        any(
            (o - 1) * s + (f - 1) * d - p < x - 1
            for o, s, f, d, p, x in zip(c.output, c.stride, c.filter, c.dilation, c.pad, c.spatial)
        )
        for c in strided
    )


def test_edge_shapes():
    specs = _on("gfx942")
    assert any(s.dgrad_gemm[1] % s.tile.block_n for s in specs)  # C/groups not a multiple of the tile
    assert any(s.dgrad_gemm[2] % s.tile.block_k for s in specs)  # K/groups x taps not a multiple of the k step
    assert any(s.conv.k_per_group % 8 for s in specs)  # K/groups off the 16-byte unit: per-element dy
    assert any(math.prod(s.conv.spatial) == 1 and s.conv.n == 1 for s in specs)  # a single input pixel
    assert any(math.prod(s.conv.output) == 1 and s.conv.n == 1 for s in specs)  # a single output pixel
    assert any(all(f == x + 2 * p for f, x, p in zip(s.conv.filter, s.conv.spatial, s.conv.pad)) for s in specs)


def test_blocks_wholly_inside_and_both_dy_gathers_are_exercised():
    for arch in ARCHS:
        mine = _on(arch)
        whole = [s for s in mine if s.dgrad_gemm[0] >= s.tile.block_m and s.dgrad_gemm[1] >= s.tile.block_n]
        assert any(s.dgrad_gemm[2] % s.tile.block_k for s in whole), arch  # the fast loop, then a k tail
        assert any(igemm_dgrad._dy_gather(s).runs for s in whole), arch
        assert any(max(s.conv.stride) > 1 and igemm_dgrad._dy_gather(s).runs for s in whole), arch
        assert any(not igemm_dgrad._dy_gather(s).runs for s in mine), arch
        assert all(g > 1 for g in (max(grid(s)[i] for s in mine) for i in range(3))), arch


def test_vector_dy_gather_only_for_channels_last_whole_units():
    # Tap-major reduction: the unit's 8 r are 8 filters of one tap, whatever the filter size.
    nhwc = spec_for("gfx942", ConvSpec(1, 8, 16, (4, 4), (3, 3), stride=(2, 2), pad=(1, 1)))
    assert igemm_dgrad._dy_gather(nhwc).runs
    assert not igemm_dgrad._dy_gather(spec_for("gfx942", dataclasses.replace(nhwc.conv, k=12))).runs
    assert not igemm_dgrad._dy_gather(spec_for("gfx942", dataclasses.replace(nhwc.conv, layout="NCHW"))).runs


def test_w_gathered_in_vectors_along_channels_where_they_are_whole_units():
    # w[k, tap, c]: 8 consecutive columns (channels) are one 16-byte unit when C/groups is a multiple of 8.
    nhwc = spec_for("gfx942", ConvSpec(1, 8, 16, (4, 4), (3, 3), stride=(2, 2), pad=(1, 1)))
    w = igemm_dgrad._w_gather(nhwc)
    assert (w.runs, w.contiguous, w.stepped) == (True, "rows", None)  # K/groups = 16: a k step spans two taps
    for conv in (dataclasses.replace(nhwc.conv, c=12), dataclasses.replace(nhwc.conv, layout="NCHW")):
        assert not igemm_dgrad._w_gather(spec_for("gfx942", conv)).runs, conv


@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
def test_a_1x1_filter_takes_w_as_the_plain_b(layout):
    # w[k, 0, c] = w[k, c, 0]: [K/g, C/g] row-major in either layout, so no gather; the kernel copies B with ld = C/g.
    conv = ConvSpec(1, 24, 16, (4, 4), (1, 1), stride=(2, 2), layout=layout, groups=2)
    spec = spec_for("gfx942", conv)
    assert igemm_dgrad._w_gather(spec) is None
    assert igemm_dgrad._w_gather(spec_for("gfx942", dataclasses.replace(conv, filter=(1, 2)))) is not None


def test_stepped_gathers_where_every_k_step_lies_inside_one_tap():
    spec = spec_for("gfx942", ConvSpec(1, 64, 32, (12, 12), (3, 3), stride=(3, 3), pad=(3, 3), dilation=(2, 2)))
    assert igemm_dgrad._dy_gather(spec).stepped is not None
    assert igemm_dgrad._w_gather(spec).stepped is not None
    many_taps = spec_for("gfx942", dataclasses.replace(spec.conv, filter=(7, 7)))  # 49 taps: past a lane's mask
    assert igemm_dgrad._dy_gather(many_taps).stepped is None
    assert igemm_dgrad._w_gather(many_taps).stepped is not None


def test_every_case_has_its_archs_tile_and_kernel_signature():
    for case in FAMILY.cases:
        s = case.spec
        assert s.tile == TILES[case.arch], case.id
    kernel = build(CASES["resnet_3x3_stride2_gfx1201"])
    assert (
        kernel.attrs["workgroup_size"] == [256, 1, 1] and kernel.name == "conv_igemm_dgrad_resnet_3x3_stride2_gfx1201"
    )
    assert [a.name for a in kernel.args] == ["dy", "w", "dx"]


def test_gemm_and_grid():
    spec = spec_for("gfx942", ConvSpec(2, 96, 64, (10, 12), (3, 3), stride=(2, 2), pad=(1, 1), groups=2))
    assert spec.dgrad_gemm == (2 * 10 * 12, 48, 32 * 9)
    assert grid(spec) == (1, 2, 2)


def test_a_1x1_stride_takes_one_phase_gemm_and_grid():
    # Stride 2 x 2 on 15 x 16: dy is 8 x 8, the GEMM's rows; padding, NCHW or C/groups off whole units mask instead.
    conv = ConvSpec(2, 96, 64, (15, 16), (1, 1), stride=(2, 2), groups=2)
    spec = spec_for("gfx942", conv)
    assert spec.dgrad_one_phase and spec.dgrad_gemm == (2 * 8 * 8, 48, 32)
    assert grid(spec) == (1, 1, 2)
    for other in (
        dataclasses.replace(conv, stride=(1, 1)),
        dataclasses.replace(conv, pad=(0, 1)),
        dataclasses.replace(conv, layout="NCHW"),
        dataclasses.replace(conv, c=12),
        dataclasses.replace(conv, filter=(1, 2)),
    ):
        masked = spec_for("gfx942", other)
        assert not masked.dgrad_one_phase and masked.dgrad_gemm[0] == 2 * math.prod(other.spatial), other


def _matrix_ops(monkeypatch, case):
    """Matrix ops the kernel issues over its whole grid (one per wave and
    mma), counted in the interpreter while it computes dx."""
    count = [0]
    mma = interp.EXEC["matrix.mma"]

    def counted(c, op, mask):
        count[0] += int(mask.sum()) // c.wave
        return mma(c, op, mask)

    monkeypatch.setitem(interp.EXEC, "matrix.mma", counted)
    check = numeric_check(case, np.random.default_rng(1))
    run(build(case), check.grid, check.args)
    check.check(case.id)
    return count[0]


@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
@pytest.mark.parametrize("stride", [2, 3])
def test_a_strided_1x1_issues_the_matrix_ops_of_the_stride_1_problem_of_its_output_size(monkeypatch, arch, stride):
    # dy 8 x 16, one 128-row block (two k steps of 32, a 64-column block): from the tile, each block's
    # k step is block_m x block_n x block_k / (the mma's m x n x k) matrix ops, over the block's waves.
    # The input's last row and column are cut from their cells. Masked, the GEMM would run over every
    # input pixel: stride^2 times the blocks.
    out = (8, 16)
    strided = ConvSpec(1, 64, 64, tuple(o * stride - 1 for o in out), (1, 1), stride=(stride, stride))
    plain = ConvSpec(1, 64, 64, out, (1, 1))
    assert strided.output == plain.output == out
    spec = spec_for(arch, plain)
    t, s = spec.tile, M.shape(spec.op)
    blocks = -(-math.prod(out) // t.block_m) * -(-64 // t.block_n)
    want = blocks * -(-64 // t.block_k) * (t.block_m * t.block_n * t.block_k) // (s.m * s.n * s.k)
    counts = [_matrix_ops(monkeypatch, Case(f"count_{arch}", arch, spec_for(arch, c))) for c in (strided, plain)]
    assert counts == [want, want]


def test_an_epilogue_and_bad_tiles_are_refused_with_named_errors():
    spec = spec_for("gfx942", ConvSpec(1, 8, 8, (4, 4), (3, 3), bias=True, activation="relu"))
    with pytest.raises(
        IgemmSpecError,
        match=r"^conv_igemm_dgrad: ConvSpec.bias: expected False \(a data gradient has no bias, activation, residual or scale\), got True; conv_igemm_fwd takes bias$",
    ):
        build(Case("x", "gfx942", spec))
    residual = spec_for("gfx942", ConvSpec(1, 8, 8, (4, 4), (3, 3), residual="after_activation"))
    with pytest.raises(IgemmSpecError, match=r"ConvSpec.residual: expected 'none' .* got 'after_activation'"):
        build(Case("x", "gfx942", residual))
    bf16 = spec_for("gfx942", ConvSpec(1, 8, 8, (4, 4), (3, 3), dtype="bf16"))
    with pytest.raises(
        IgemmSpecError, match=r"IgemmSpec.tile.mma: expected a matrix-core shape gfx942 has for bf16, got '32x32x16'"
    ):
        build(Case("x", "gfx942", dataclasses.replace(bf16, tile=dataclasses.replace(bf16.tile, mma="32x32x16"))))
    assert issubclass(IgemmSpecError, SpecError) and issubclass(
        IgemmSpecError, Refusal
    )  # the gates record it as an expected rejection


def _run(case, args_from):
    """The case's kernel run on the problem of case `args_from`; (got, want, problem)."""
    p = numeric_check(args_from, np.random.default_rng(1))
    run(build(case), p.grid, p.args)
    return p.decode(p.args[2]), p.expected[2], p


@pytest.mark.parametrize(
    "name", ["resnet_1x1_stride2_bf16_gfx950", "stride3_pad_dilation_bf16_gfx1201", "stride2_uncovered_edge_gfx942"]
)
def test_pixels_no_output_reaches_are_exact_zeros(name):
    # 1x1 stride 2: odd pixels; stride 3 with dilation: most pixels; an uncovered edge:
    # the last row and column. The kernel must write them (dx starts as NaN) and
    # write zero: no wrong phase of dy leaks in.
    got, want, p = _run(CASES[name], CASES[name])
    want.check(got, "the kernel's output")
    zero = want.values == 0
    assert 0.05 < zero.mean() < 0.95
    np.testing.assert_array_equal(got[zero], 0)


def test_the_numeric_check_sees_padding_and_dilation():
    # 3x3, pad 2, dilation 2 and 3x3, pad 1, dilation 1 give the same dx and dy shapes: only the taps differ.
    dilated = CASES["unet_dilated_bf16_gfx942"]
    plain = Case(
        "plain", "gfx942", spec_for("gfx942", dataclasses.replace(dilated.spec.conv, pad=(1, 1), dilation=(1, 1)))
    )
    got, want, p = _run(plain, dilated)
    assert want.misses(got).any()
    got, want, p = _run(dilated, dilated)
    want.check(got, "the kernel's output")


def test_unwritten_outputs_fail_the_check():
    for name in ("resnet_1x1_f16_gfx942", "nchw_stride2_bf16_gfx1201"):
        p = numeric_check(CASES[name], np.random.default_rng(1))
        assert np.isnan(p.decode(p.args[2])).all()


@pytest.mark.parametrize(
    "arch,conv",
    [
        # MobileNetV2's depthwise 3x3 (1 channel per group), stride 1 and 2; the planner builds them with this family.
        ("gfx942", ConvSpec(1, 24, 24, (9, 9), (3, 3), pad=(1, 1), groups=24)),
        ("gfx1201", ConvSpec(2, 16, 16, (8, 8), (3, 3), stride=(2, 2), pad=(1, 1), groups=16, dtype="bf16")),
        ("gfx1250", ConvSpec(1, 8, 8, (6, 6), (3, 3), pad=(1, 1), groups=8, layout="NCHW")),
    ],
)
def test_depthwise_layers_compute_their_data_gradient(arch, conv):
    case = Case("depthwise", arch, spec_for(arch, conv))
    got, want, p = _run(case, case)
    want.check(got, "the kernel's output")


def test_one_element_four_f16_ulps_off_fails_the_gate():
    # A real kernel's small output (72 elements) with one element moved by 4 f16 ulps, where
    # that is under 1e-3 (|dx| below 0.5): one absolute tolerance for all passes it; the gate must not.
    case = CASES["single_output_pixel_gfx942"]
    p = numeric_check(case, np.random.default_rng(1))
    run(build(case), p.grid, p.args)
    p.check(case.id)
    dx = p.args[2].reshape(-1)
    i = next(i for i, v in enumerate(dx) if 0.125 <= abs(v) < 0.5)
    for _ in range(4):
        dx[i] = np.nextafter(dx[i], np.float16(np.inf))
    assert np.allclose(p.decode(p.args[2]), p.expected[2].values, rtol=2.0**-10, atol=1e-3)
    at = rf"\(0, {i // 24}, {i // 8 % 3}, {i % 8}\)"  # NHWC, 3 x 3 pixels of 8 channels
    message = rf"^{case.id}: argument 2: 1 of 72 elements outside the bound; the worst, at {at}"
    with pytest.raises(AssertionError, match=message):
        p.check(case.id)
