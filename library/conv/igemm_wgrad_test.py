"""conv_igemm_wgrad's cases, spec, refusals and kernels: what the issue asks
the cases to cover, the errors a user can cause, that each split owns its
own rows of the reduction, that the numeric check can fail, that the
atomic mode adds onto what dw holds, and the
two-stage split end to end (the split kernel, then conv_fwd_split_k_reduce's
kernel) against reference.wgrad."""

import dataclasses
import math

import numpy as np
import pytest

from conv import common, igemm_wgrad, reference
from conv.igemm_tiles import IgemmSpecError
from conv.igemm_wgrad import FAMILY, build, numeric_check
from conv.spec import ConvSpec, SpecError
from conv.split_k_reduce import grid as reduce_grid
from conv.split_k_reduce import reduce_kernel
from conv.wgrad_spec import MODES, TILES, WgradSpec, WgradSpecError, spec_for, tile_for
from family import bound
from interp.interp import run
from ir.printer import print_kernel

CASES = {c.id: c for c in FAMILY.cases}
ARCHS = {"gfx942", "gfx950", "gfx1201", "gfx1250"}


def _run(case, seed=0):
    p = numeric_check(case, np.random.default_rng(seed))
    run(build(case), p.grid, p.args)
    return p, p.decode(p.args[2]).reshape(p.expected[2].values.shape)


def test_at_least_ten_problems_on_each_arch():
    assert len(CASES) >= 40
    for arch in ARCHS:
        assert sum(c.arch == arch for c in FAMILY.cases) >= 10, arch


def test_coverage_of_the_problem_fields_and_modes():
    for arch in ARCHS:
        specs = [c.spec for c in FAMILY.cases if c.arch == arch]
        convs = [s.conv for s in specs]
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
        assert {s.mode for s in specs} == set(MODES), arch
        assert any(s.mode != "none" and s.conv.groups > 1 for s in specs) and any(
            s.mode != "none" and not s.conv.channels_last for s in specs
        ), arch


def test_edge_shapes():
    specs = [c.spec for c in FAMILY.cases if c.arch == "gfx942"]
    assert any(
        s.gemm[0] % s.igemm.tile.block_m and s.gemm[0] > s.igemm.tile.block_m for s in specs
    )  # K: a partial second filter block
    assert any(s.gemm[1] % s.igemm.tile.block_n for s in specs)  # C x taps not a multiple of the tile
    assert any(s.conv.c % 8 for s in specs) and any(s.conv.k % 8 for s in specs)  # C and K off the 16-byte unit
    assert any(s.conv.filter == (1, 1) and s.conv.stride == (2, 2) for s in specs)  # 1x1 stride 2
    assert any(math.prod(s.conv.output) == 1 and s.conv.n == 1 for s in specs)  # a single output pixel
    assert any(all(f == x + 2 * p for f, x, p in zip(s.conv.filter, s.conv.spatial, s.conv.pad)) for s in specs)


def test_fast_loop_tails_gathers_and_grids_are_exercised():
    for arch in ARCHS:
        mine = [c.spec for c in FAMILY.cases if c.arch == arch]
        whole = [s for s in mine if s.gemm[0] >= s.igemm.tile.block_m and s.gemm[1] >= s.igemm.tile.block_n]
        assert any(s.gemm[2] % s.igemm.tile.block_k and s.gemm[2] > s.igemm.tile.block_k for s in whole), (
            arch
        )  # fast loop, then a k tail
        assert any(s.mode != "none" for s in whole), arch  # a split through the fast loop
        nchw = [s for s in mine if not s.conv.channels_last]
        assert any(igemm_wgrad._dy_gather(s, 0, None).runs for s in nchw) and any(
            not igemm_wgrad._dy_gather(s, 0, None).runs for s in nchw
        ), arch
        # x: vector loads along rows (C/groups a multiple of 8, NHWC), through the fast loop; per element otherwise.
        assert any(igemm_wgrad._input_gather(s, 0, None).contiguous == "rows" for s in whole), arch
        assert any(
            igemm_wgrad._input_gather(s, 0, None).contiguous == "k" and not igemm_wgrad._input_gather(s, 0, None).runs
            for s in mine
        ), arch
        assert (
            any(s.grid()[0] > 1 for s in mine)
            and any(s.grid()[1] > 1 for s in mine)
            and any(s.grid()[2] > 1 for s in mine)
        ), arch


def test_every_case_has_tile_fors_tile_and_arguments():
    for case in FAMILY.cases:
        m, n, _ = case.spec.gemm
        assert case.spec.igemm.tile == tile_for(case.arch, m, n), case.id
    kernel = build(CASES["resnet_3x3_c64_gfx1201"])
    assert kernel.attrs["workgroup_size"] == [256, 1, 1] and kernel.name == "conv_igemm_wgrad_resnet_3x3_c64_gfx1201"
    assert [a.name for a in kernel.args] == ["x", "dy", "dw"]
    assert [a.name for a in build(CASES["nchw_two_stage_gfx942"]).args] == ["x", "dy", "workspace"]
    assert [a.name for a in build(CASES["video_3d_atomic_gfx950"]).args] == ["x", "dy", "dw"]


def test_output_types_follow_the_mode():
    assert [
        spec_for("gfx942", ConvSpec(4, 8, 8, (8, 8), (3, 3), dtype="bf16"), s, m).out_dtype
        for s, m in ((1, "none"), (2, "two_stage"), (2, "atomic"))
    ] == ["bf16", "f32", "f32"]
    assert "mem.atomic_add" in print_kernel(build(CASES["video_3d_atomic_gfx942"]))
    assert "mem.atomic_add" not in print_kernel(build(CASES["video_3d_f16_gfx942"]))
    assert "mem.atomic_add" not in print_kernel(build(CASES["nchw_two_stage_gfx942"]))


@pytest.mark.parametrize("name", [n for n in {c.id.rsplit("_gfx", 1)[0] for c in FAMILY.cases}])
def test_splits_own_disjoint_rows_covering_the_reduction(name):
    spec = CASES[name + "_gfx942"].spec
    rows = [spec.rows(s) for s in range(spec.split)]
    assert rows[0][0] == 0 and rows[-1][1] == spec.gemm[2]
    assert all(first < end for first, end in rows) and all(a[1] == b[0] for a, b in zip(rows, rows[1:]))
    assert all(first % spec.igemm.tile.block_k == 0 for first, _ in rows)


def test_spec_json_round_trip_and_errors():
    spec = CASES["resnext_grouped_two_stage_bf16_gfx950"].spec
    assert WgradSpec.from_json(spec.to_json()) == spec
    conv = ConvSpec(2, 16, 16, (4, 4), (3, 3), pad=(1, 1))  # a reduction of 32: one k step
    good = spec_for("gfx942", conv).to_json()
    bad = [
        ({**good, "extra": 1}, r"WgradSpec: expected a JSON object with exactly the fields igemm, split, mode, got"),
        ({**good, "igemm": [1]}, r"WgradSpec.igemm: expected an IgemmSpec, got \[1\]"),
        ({**good, "split": 0}, r"WgradSpec.split: expected a positive int, got 0"),
        ({**good, "split": True}, r"WgradSpec.split: expected a positive int, got True"),
        ({**good, "mode": "both"}, r"WgradSpec.mode: expected one of none, two_stage, atomic, got 'both'"),
        (
            {**good, "split": 2},
            r"WgradSpec.split: expected 1 with mode 'none' and at least 2 with 'two_stage' or 'atomic', got split 2 with mode 'none'",
        ),
        ({**good, "mode": "atomic"}, r"got split 1 with mode 'atomic'"),
        (
            {**good, "split": 2, "mode": "atomic"},
            r"WgradSpec.split: expected at most 1 \(one 32-deep k step of the 32-long reduction per split\), got 2; take a smaller split",
        ),
    ]
    for obj, message in bad:
        with pytest.raises(WgradSpecError, match=message):
            WgradSpec.from_json(obj)
    with pytest.raises(IgemmSpecError, match=r"IgemmSpec.conv.dtype: expected one of f16, bf16"):
        WgradSpec.from_json({**good, "igemm": {**good["igemm"], "conv": {**good["igemm"]["conv"], "dtype": "f32"}}})
    # The two-stage workspace must fit 32-bit offsets: 1024 x 4608 x 4 bytes x 128 slices is 2.4 GB.
    big = ConvSpec(64, 512, 1024, (32, 32), (3, 3), pad=(1, 1))
    assert spec_for("gfx942", big, 64, "two_stage").out_elements == 64 * 1024 * 512 * 9
    with pytest.raises(
        WgradSpecError,
        match=r"WgradSpec: expected every tensor at most 2147483647 bytes \(2\*\*31 - 1: the kernels' offsets are 32-bit\), got the f32 workspace \(128, 1024, 3, 3, 512\) of 2415919104 bytes; take a smaller split",
    ):
        spec_for("gfx942", big, 128, "two_stage")
    assert issubclass(WgradSpecError, SpecError)
    with pytest.raises(
        WgradSpecError,
        match=r"ConvSpec.dtype: expected one of f16, bf16 \(conv_igemm_wgrad runs on matrix cores\), got 'f32'; no family computes an f32 weight gradient",
    ):
        spec_for("gfx942", ConvSpec(1, 8, 8, (4, 4), (3, 3), dtype="f32"))
    with pytest.raises(
        WgradSpecError,
        match=r"conv_igemm_wgrad tiles: expected an arch with a tile \(gfx942, gfx950, gfx1201, gfx1250\), got 'gfx90a'; add a row",
    ):
        spec_for("gfx90a", conv)
    # A gradient through an epilogue needs its derivative on dy, which dw alone cannot see: refused by name.
    bias = r"ConvSpec.bias: expected False \(conv_igemm_wgrad computes the weight gradient of the convolution "
    fix = r"alone\), got True; apply the epilogue's derivative to dy and drop bias$"
    with pytest.raises(WgradSpecError, match=bias + fix):
        spec_for("gfx942", ConvSpec(1, 16, 16, (4, 4), (3, 3), bias=True, activation="relu"))
    conv = {**good["igemm"]["conv"], "activation": "gelu_erf"}
    with pytest.raises(
        WgradSpecError, match=r"ConvSpec.activation: expected 'none' .* got 'gelu_erf'; .* drop activation$"
    ):
        WgradSpec.from_json({**good, "igemm": {**good["igemm"], "conv": conv}})
    conv = {**good["igemm"]["conv"], "scale": "0.5"}
    with pytest.raises(WgradSpecError, match=r"ConvSpec.scale: expected '1' .* got '0.5'"):
        WgradSpec.from_json({**good, "igemm": {**good["igemm"], "conv": conv}})


def test_numbers_and_that_the_check_can_fail():
    # Unsplit: the kernel matches reference.wgrad, and not the wgrad of dy shifted by one pixel.
    case = CASES["unet_3x3_odd_gfx1250"]
    p, got = _run(case)
    p.expected[2].check(got, case.id)
    c = case.spec.conv
    x64 = common.decode(p.args[0], c.dtype).reshape(c.input_shape())
    dy64 = common.decode(p.args[1], c.dtype).reshape(c.output_shape())
    shifted = reference.wgrad(c, x64, np.roll(dy64, 1, axis=1))
    assert dataclasses.replace(p.expected[2], values=shifted).misses(got).any()
    # Two-stage: each slice is its split's partial sum, which differs from the whole dw; the slices add up to it.
    case = CASES["resnet_3x3_c64_two_stage_gfx942"]
    p, got = _run(case)
    p.expected[2].check(got, case.id)
    c = case.spec.conv
    x64 = common.decode(p.args[0], c.dtype).reshape(c.input_shape())
    dy64 = common.decode(p.args[1], c.dtype).reshape(c.output_shape())
    whole = bound.expected(lambda x, dy: reference.wgrad(c, x, dy).ravel(), (x64, dy64), case.spec.gemm[2], "f32")
    slices = got.reshape(case.spec.split, -1)
    assert whole.misses(slices[0]).any()
    whole.check(slices.sum(axis=0), "the slices' sum")


def test_atomic_adds_to_what_dw_holds():
    # The atomic variant accumulates: run on a dw already holding 1, every element comes out one more.
    case = CASES["video_3d_atomic_gfx1201"]
    p = numeric_check(case, np.random.default_rng(0))
    p.args[2][...] = 1.0
    run(build(case), p.grid, p.args)
    # The 1 is one more term of every element's sum.
    want = p.expected[2]
    held = dataclasses.replace(want, values=want.values + 1.0, magnitudes=want.magnitudes + 1.0, length=want.length + 1)
    held.check(p.args[2].astype(np.float64), case.id)


@pytest.mark.parametrize("name", ["resnet_3x3_c64_two_stage", "resnext_grouped_two_stage_bf16", "nchw_two_stage"])
@pytest.mark.parametrize("arch", ["gfx942", "gfx1201"])
def test_two_stage_then_reduce_gives_dw(name, arch):
    # The split kernel's workspace, summed and converted by conv_fwd_split_k_reduce's kernel,
    # is dw in the input type: reference.wgrad of the whole reduction, within the input type's bound.
    case = CASES[f"{name}_{arch}"]
    spec, c = case.spec, case.spec.conv
    p = numeric_check(case, np.random.default_rng(1))
    run(build(case), p.grid, p.args)
    store_type, poison = common.POISON[c.dtype]
    dw = np.full(c.weight_shape(), poison, store_type)
    reduce = reduce_kernel(f"reduce_{case.id}", arch, spec.elements, spec.split, c.dtype)
    run(reduce, reduce_grid(spec.elements), [p.args[2], dw])
    x64 = common.decode(p.args[0], c.dtype).reshape(c.input_shape())
    dy64 = common.decode(p.args[1], c.dtype).reshape(c.output_shape())
    want = bound.expected(lambda x, dy: reference.wgrad(c, x, dy), (x64, dy64), spec.gemm[2], c.dtype)
    want.check(common.decode(dw, c.dtype), case.id)


def test_tile_for_takes_the_biggest_block_the_weights_fill():
    # M x N weights -> block: 128 x 128 when both reach 128, 64 x 256 when N reaches 256,
    # 256 x 64 when M reaches 256, else the arch's.
    want = {
        (128, 128): (128, 128),
        (512, 4608): (128, 128),
        (64, 576): (64, 256),
        (127, 256): (64, 256),
        (8, 392): (64, 256),
        (256, 64): (256, 64),
        (2048, 127): (256, 64),
        (255, 127): (64, 64),
        (128, 127): (64, 64),
        (64, 255): (64, 64),
        (1, 1): (64, 64),
    }
    for arch, base in TILES.items():
        assert (base.block_m, base.block_n) == (64, 64), arch
        for (m, n), block in want.items():
            tile = tile_for(arch, m, n)
            assert (tile.block_m, tile.block_n) == block, (arch, m, n)
            assert (tile.mma, tile.block_k, tile.waves_m, tile.waves_n) == (base.mma, 32, base.waves_m, base.waves_n)
    # Every block is in the cases, on every arch.
    for arch in TILES:
        blocks = {(c.spec.igemm.tile.block_m, c.spec.igemm.tile.block_n) for c in FAMILY.cases if c.arch == arch}
        assert blocks == {(64, 64), (64, 256), (128, 128), (256, 64)}, arch
