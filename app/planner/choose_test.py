"""The selection table: which family and config each op gets on each arch, and why."""

import re

import pytest

from arch import arch
from conv import igemm_tiles
from gemm.tiles import TILES
from planner.jobs import Job, plan
from planner.problems import read


def _jobs(*entries, archs=("gfx942",)):
    problems, errors = read({"problems": list(entries)})
    assert errors == []
    return plan(problems, list(archs))


def conv(**fields):
    return dict(
        {"op": "conv_fwd", "n": 1, "c": 32, "k": 32, "spatial": [28, 28], "filter": [3, 3], "pad": [1, 1]}, **fields
    )


# (entry, arch) -> family chosen.
TABLE = [
    (conv(), "gfx942", "conv_igemm_fwd"),
    (conv(dtype="bf16"), "gfx1201", "conv_igemm_fwd"),
    (conv(groups=2), "gfx1250", "conv_igemm_fwd"),  # 16 filters per group
    (conv(dtype="f32"), "gfx942", "conv_img2col"),  # no matrix-core f32 tile
    (conv(), "gfx1151", "conv_img2col"),  # no igemm tile for this arch
    (conv(groups=32), "gfx942", "conv_direct_fwd"),  # depthwise
    (conv(groups=4), "gfx950", "conv_direct_fwd"),  # 8 filters per group
    ({"op": "gemm", "m": 64, "n": 64, "k": 64, "dtype": "bf16"}, "gfx1250", "gemm"),
    ({"op": "softmax", "rows": 128, "dim": 128}, "gfx950", "softmax"),
    (conv(op="conv_dgrad"), "gfx942", "conv_igemm_dgrad"),
    (conv(op="conv_dgrad", groups=2, stride=[2, 2]), "gfx1201", "conv_igemm_dgrad"),  # 16 channels per group
    (conv(op="conv_dgrad", groups=32), "gfx942", "conv_igemm_dgrad"),  # depthwise: 1 channel per group
    (conv(op="conv_dgrad", groups=4, dtype="bf16"), "gfx1250", "conv_igemm_dgrad"),  # ResNeXt: 8 channels per group
    # The stem: C = 3.
    (
        conv(op="conv_dgrad", c=3, k=64, spatial=[224, 224], filter=[7, 7], stride=[2, 2], pad=[3, 3]),
        "gfx950",
        "conv_igemm_dgrad",
    ),
]


@pytest.mark.parametrize("entry,arch,family", TABLE)
def test_the_table(entry, arch, family):
    jobs, errors = _jobs(entry, archs=(arch,))
    assert errors == [] and [j.choice.family for j in jobs] == [family]


def test_igemm_takes_its_archs_tile_and_explains_the_gemm():
    (job,), _ = _jobs(conv(), archs=("gfx950",))
    assert job.choice.config == "mma 32x32x16, block 128x64x32, waves 2x2, split-K 4"
    assert job.choice.spec.conv.k == 32 and job.choice.spec.split_k == 4
    # 784 pixels x 32 filters: 7 x 1 workgroups of 128 x 64 on 256 CUs; 288 = 9 k steps of 32, so at most a 4-way split.
    assert job.choice.reasons == (
        "conv_igemm_fwd: chosen, matrix cores: a 784x32x288 implicit GEMM per group; its tile for gfx950 (library/conv/igemm_tiles.json); "
        "split-K: the planner (select_split_k_fwd) picks 4: the kernel reduces 1/4 of the k steps per workgroup into an f32 workspace of 4 slices, "
        "then conv_fwd_split_k_reduce (stage reduce, its own code object NAME.reduce.hsaco and index row) adds them into the f16 output",
    )


def test_the_stem_is_gathered_by_row_runs_and_never_split():
    # At batch 1 the plain 12544x64x147 GEMM splits on gfx942 and gfx950 (split-K 2); row runs are never split.
    stem = conv(name="conv1", c=3, k=64, spatial=[224, 224], filter=[7, 7], stride=[2, 2], pad=[3, 3])
    for target in ("gfx942", "gfx950", "gfx1201"):
        (job,), _ = _jobs(stem, archs=(target,))
        spec = job.choice.spec
        assert (spec.row_runs, spec.split_k, spec.gemm) == (True, 1, (112 * 112, 64, 7 * 32)), target
        assert job.choice.config.endswith(", row runs") and job.choice.then == ()
        assert "each filter row's 21 elements load as one run" in job.choice.reasons[0]
    # C = 8 is a whole unit: the plain gather; C = 16 with a 3x3 is a row of 48, past the k step.
    for c in (8, 16):
        (job,), _ = _jobs(conv(c=c, k=64), archs=("gfx942",))
        assert not job.choice.spec.row_runs, c


def test_a_split_conv_is_two_kernels_the_reduce_after_the_split():
    (job,), _ = _jobs(conv(name="late", bias=True, activation="relu"), archs=("gfx942",))
    (reduce,) = job.choice.then
    assert (reduce.family, reduce.module, reduce.stage) == ("conv_fwd_split_k_reduce", "conv.split_k_reduce", "reduce")
    assert reduce.spec.split_k == job.choice.spec.split_k > 1 and reduce.spec.conv == job.choice.spec.conv
    assert reduce.config == f"{reduce.spec.split_k} f32 slices, 4 elements per lane"  # 784 x 32 outputs
    assert ", bias and relu into the f16 output" in job.choice.reasons[0]
    assert [(c.family, case, path) for c, case, path in job.kernels()] == [
        ("conv_igemm_fwd", "late_gfx942", "gfx942/late.hsaco"),
        ("conv_fwd_split_k_reduce", "late_gfx942_reduce", "gfx942/late.reduce.hsaco"),
    ]


def test_a_layer_that_fills_the_machine_is_one_kernel():
    (job,), _ = _jobs(conv(n=32, spatial=[56, 56]), archs=("gfx942",))
    assert job.choice.family == "conv_igemm_fwd" and job.choice.spec.split_k == 1 and job.choice.then == ()
    assert "picks 1" in job.choice.reasons[0] and "reduce" not in job.choice.reasons[0]
    assert [path for _, _, path in job.kernels()] == [job.path]


def test_only_conv_igemm_fwd_has_a_follow_up():
    # img2col and direct never split: one kernel each.
    for entry, on in ((conv(dtype="f32"), "gfx942"), (conv(groups=32), "gfx942")):
        (job,), _ = _jobs(entry, archs=(on,))
        assert job.choice.then == () and len(job.kernels()) == 1


def test_explain_says_why_img2col_was_passed_over_for_depthwise():
    (job,), _ = _jobs(conv(groups=32))
    assert job.choice.reasons == (
        "conv_igemm_fwd: passed over, k / groups = 1: a group's filters would fill 1 of a matrix op's 16 columns",
        "conv_img2col: passed over, groups = 32: the im2col GEMM needs groups == 1",
        "conv_direct_fwd: chosen, groups = 32: direct convolution computes any groups, depthwise included",
    )


@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "gfx1201"])
def test_gemm_takes_its_archs_tile_and_the_planners_split(arch):
    (job,), _ = _jobs({"op": "gemm", "m": 128, "n": 128, "k": 4096, "dtype": "f16"}, archs=(arch,))
    tile = TILES[(arch, "f16")]
    assert job.choice.spec.tile == tile
    assert job.choice.config == f"mma {tile.mma}, block 128x128x32, waves {tile.waves_m}x{tile.waves_n}"
    # One 128x128 block on a machine of dozens of CUs: the planner would split k.
    assert (
        job.choice.reasons[2]
        == "split-K: the planner (select_split_k) picks 16; the gemm family has no split-K yet, so the kernel runs unsplit"
    )


@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "gfx1201", "gfx1250"])
def test_dgrad_takes_conv_igemm_dgrad_with_its_archs_tile(arch):
    (job,), errors = _jobs(conv(op="conv_dgrad", dtype="bf16"), archs=(arch,))
    assert errors == [] and job.choice.family == "conv_igemm_dgrad" and job.choice.module == "conv.igemm_dgrad"
    tile = igemm_tiles.TILES[arch]
    assert (
        job.choice.config
        == f"mma {tile.mma}, block {tile.block_m}x{tile.block_n}x{tile.block_k}, waves {tile.waves_m}x{tile.waves_n}"
    )
    assert job.choice.spec.conv.dtype == "bf16" and job.choice.spec.tile == tile


def test_dgrad_explains_the_gemm_and_the_stride():
    (job,), _ = _jobs(conv(op="conv_dgrad", c=64, stride=[2, 2]), archs=("gfx950",))
    # 28 x 28 input pixels x 64 channels (one block's columns), reduced over 32 filters x 9 taps;
    # stride 2 x 2: 4 x the work.
    assert job.choice.reasons == (
        "conv_igemm_dgrad: chosen, matrix cores: a 784x64x288 implicit GEMM per group (input pixels x C/groups x K/groups taps); "
        "its tile for gfx950 (library/conv/igemm_tiles.json); stride 2x2 is masked in dy's gather: 4 x the matrix work of the non-zero terms",
    )
    (job,), _ = _jobs(conv(op="conv_dgrad", c=64), archs=("gfx942",))
    assert job.choice.reasons[0].endswith("its tile for gfx942 (library/conv/igemm_tiles.json)")
    # A 1x1 filter of stride 2 without padding: 14 x 14 output pixels, the GEMM's rows.
    (job,), _ = _jobs(conv(op="conv_dgrad", c=64, filter=[1, 1], pad=[0, 0], stride=[2, 2]), archs=("gfx942",))
    assert job.choice.reasons == (
        "conv_igemm_dgrad: chosen, matrix cores: a 196x64x32 implicit GEMM per group (output pixels x C/groups x K/groups taps); "
        "its tile for gfx942 (library/conv/igemm_tiles.json); stride 2x2 of a 1x1 filter: the one stride phase it reaches, the other input pixels zeros",
    )


@pytest.mark.parametrize(
    "fields,arch,idle",
    [
        # Every tile's block is 64 columns wide (igemm_tiles.json): a group's channels fill part of it.
        ({"c": 32, "groups": 32}, "gfx942", "a group's 1 channel fills 1 of the 64 columns its blocks multiply (1.6%"),
        (
            {"c": 3, "k": 64, "filter": [7, 7], "stride": [2, 2], "pad": [3, 3]},
            "gfx1201",
            "a group's 3 channels fill 3 of the 64 columns its blocks multiply (4.7%",
        ),
        ({"c": 32, "groups": 4}, "gfx950", "a group's 8 channels fill 8 of the 64 columns its blocks multiply (12.5%"),
        ({"c": 96}, "gfx1250", "a group's 96 channels fill 96 of the 128 columns its blocks multiply (75.0%"),
    ],
)
def test_dgrad_builds_few_channels_per_group_and_says_how_idle_the_matrix_ops_are(fields, arch, idle):
    (job,), errors = _jobs(conv(op="conv_dgrad", **fields), archs=(arch,))
    assert errors == [] and job.choice.family == "conv_igemm_dgrad"
    assert job.choice.reasons[0].endswith(f"; the matrix ops are partly idle: {idle} of the matrix work)")


@pytest.mark.parametrize(
    "fields,arch,why",
    [
        (
            {"bias": True, "activation": "relu"},
            "gfx942",
            "conv_igemm_dgrad: passed over, bias = True: a data gradient has no bias, activation, residual or scale; drop bias from the entry",
        ),
        (
            {"scale": 0.5},
            "gfx942",
            "conv_igemm_dgrad: passed over, scale = '0.5': a data gradient has no bias, activation, residual or scale; drop scale from the entry",
        ),
        (
            {"dtype": "f32"},
            "gfx1201",
            "conv_igemm_dgrad: passed over, IgemmSpec.conv.dtype: expected one of f16, bf16 (matrix cores), got 'f32'; conv_direct_fwd and conv_img2col compute an f32 forward convolution; no family computes an f32 data gradient",
        ),
    ],
)
def test_dgrad_refusals_name_why(fields, arch, why):
    problems, _ = read({"problems": [conv(op="conv_dgrad", **fields)]})
    jobs, errors = plan(problems, [arch])
    assert jobs == []
    assert [str(e) for e in errors] == [f"problems[0]: no conv_dgrad family accepts it: {why}"]


def test_an_entry_refused_on_one_arch_still_builds_on_the_others():
    problems, _ = read({"problems": [{"op": "gemm", "m": 64, "n": 64, "k": 64, "dtype": "fp8"}]})
    jobs, errors = plan(problems, ["gfx942", "gfx950"])
    assert [j.arch for j in jobs] == ["gfx950"]
    assert [str(e) for e in errors] == [
        "problems[0].dtype on gfx942: expected an input type the gemm family has a tile for on gfx942 (bf16, f16), got 'fp8'"
    ]


def test_a_bad_gemm_field_is_named_by_the_spec():
    problems, _ = read(
        {
            "problems": [
                {"op": "gemm", "m": 64, "n": 0, "k": 64, "dtype": "f16"},
                {"op": "gemm", "m": 64, "n": 64, "k": 64, "dtype": "f16", "layout_a": "diag"},
            ]
        }
    )
    jobs, errors = plan(problems, ["gfx942", "gfx950"])
    assert jobs == []
    assert [str(e) for e in errors] == [
        "problems[0].n: expected a positive int, got 0",
        "problems[1].layout_a: expected one of row, col, got 'diag'",
    ]


def test_fields_of_the_wrong_json_type_are_named_not_a_crash():
    problems, errors = read(
        {
            "problems": [
                {"op": "gemm", "m": 64, "n": 64, "k": 64, "dtype": ["f16"]},
                {"op": "gemm", "m": 64, "n": 64, "k": 64, "dtype": "f16", "layout_a": 5},
                {"op": "gemm", "m": 64.0, "n": 64, "k": 64, "dtype": "f16"},
            ]
        }
    )
    assert errors == []
    jobs, errors = plan(problems, ["gfx942"])
    assert jobs == []
    assert [str(e) for e in errors] == [
        "problems[0].dtype: expected an input type the gemm family has a tile for on gfx942 (bf16, f16), got ['f16']",
        "problems[1].layout_a: expected one of row, col, got 5",
        "problems[2].m: expected a positive int, got 64.0",
    ]


def test_wgrad_takes_its_tile_and_the_planners_split_as_two_stage_then_its_reduce():
    # ResNet-50's res2 3x3 at batch 32: 64 x 576 weights are 3 blocks of 64 x 256 on 304 CUs, the
    # reduction 32 x 56 x 56 = 100,352 long: select_split_k_wgrad splits 64 ways; 64 f32 slices of
    # 36,864 elements are 9 MiB, within the 64 MiB budget, so two-stage with its reduce.
    (job,), _ = _jobs(conv(op="conv_wgrad", n=32, c=64, k=64, spatial=[56, 56], name="res2"))
    assert job.choice.family == "conv_igemm_wgrad"
    assert (job.choice.spec.split, job.choice.spec.mode) == (64, "two_stage")
    assert job.choice.config == "mma 16x16x16, block 64x256x32, waves 2x2, split 64 two_stage"
    assert job.choice.reasons == (
        "conv_igemm_wgrad: the one wgrad family; matrix cores: a 64x576x100352 implicit GEMM per group; its tile for gfx942 (conv.wgrad_spec.TILES): "
        "mma 16x16x16, block 64x256x32, waves 2x2, split 64 two_stage",
        "workgroups: 3 blocks of dw on 304 CUs",
        "split-K: the planner (select_split_k_wgrad) picks 64, two_stage: the f32 workspace of the splits fits the planner's "
        "budget (conv.split_k.WORKSPACE_BYTES), so each split writes its own slice and conv_fwd_split_k_reduce (stage reduce, "
        "its own code object NAME.reduce.hsaco and index row) adds them in a fixed order into the f16 dw",
    )
    (reduce,) = job.choice.then
    assert (reduce.family, reduce.stage, reduce.spec.tensor) == ("conv_fwd_split_k_reduce", "reduce", "dw")
    assert (reduce.spec.split_k, reduce.spec.conv, reduce.spec.elements) == (64, job.choice.spec.conv, 64 * 576)
    assert reduce.config == "64 f32 slices, 4 elements per lane"
    assert [(c.family, case, path) for c, case, path in job.kernels()] == [
        ("conv_igemm_wgrad", "res2_gfx942", "gfx942/res2.hsaco"),
        ("conv_fwd_split_k_reduce", "res2_gfx942_reduce", "gfx942/res2.reduce.hsaco"),
    ]


def test_wgrad_unsplit_when_the_launch_fills_the_cus():
    # 512 x 4,608 weights: 144 blocks of 128 x 128 on 64 CUs.
    (job,), _ = _jobs(conv(op="conv_wgrad", n=1, c=512, k=512, spatial=[7, 7], dtype="bf16"), archs=("gfx1201",))
    assert (job.choice.spec.split, job.choice.spec.mode, job.choice.spec.out_dtype) == (1, "none", "bf16")
    assert job.choice.config == "mma 16x16x16, block 128x128x32, waves 4x2"
    assert (
        job.choice.reasons[2]
        == "split-K: the planner (select_split_k_wgrad) picks 1, none: the launch fills the CUs unsplit (or the reduction is too short to split): dw in the input type"
    )


def test_wgrad_refusals_are_named():
    problems, _ = read({"problems": [conv(op="conv_wgrad", dtype="f32")]})
    jobs, errors = plan(problems, ["gfx942", "gfx1151"])
    assert jobs == []
    assert [str(e) for e in errors] == [
        "problems[0].dtype on gfx942: expected one of f16, bf16 (conv_igemm_wgrad runs on matrix cores), got 'f32'; no family computes an f32 weight gradient",
        "problems[0] on gfx1151: conv_igemm_wgrad tiles: expected an arch with a tile (gfx942, gfx950, gfx1201, gfx1250), got 'gfx1151'; add a row to library/conv/wgrad_tiles.json",
    ]


def test_wgrad_through_a_bias_and_relu_is_a_named_error():
    # dw through a relu needs the relu's mask on dy, which conv_igemm_wgrad does not apply.
    problems, _ = read({"problems": [conv(op="conv_wgrad", bias=True, activation="relu")]})
    jobs, errors = plan(problems, ["gfx942", "gfx950"])
    assert jobs == []
    assert [str(e) for e in errors] == [
        "problems[0].bias: expected False (conv_igemm_wgrad computes the weight gradient of the convolution "
        "alone), got True; apply the epilogue's derivative to dy and drop bias",
    ]


GEMM = {"op": "gemm", "m": 64, "n": 64, "k": 64, "dtype": "f16"}


def test_a_gemm_epilogue_reaches_its_spec_and_a_bad_one_is_named():
    problems, _ = read({"problems": [dict(GEMM, bias=True, activation="gelu_erf", residual="after_activation")]})
    (job,), errors = plan(problems, ["gfx942"])
    spec = job.choice.spec
    assert errors == [] and (spec.bias, spec.activation, spec.residual, spec.scale) == (
        True,
        "gelu_erf",
        "after_activation",
        "1",
    )
    problems, _ = read({"problems": [dict(GEMM, activation="gelu")]})
    jobs, errors = plan(problems, ["gfx942"])
    assert jobs == [] and [str(e) for e in errors] == [
        "problems[0].activation: expected one of none, relu, relu6, gelu_tanh, gelu_erf, got 'gelu'"
    ]


@pytest.mark.parametrize("entry", [conv(), conv(op="conv_dgrad"), conv(op="conv_wgrad"), GEMM])
def test_an_unknown_arch_is_refused_at_planning_naming_the_known_ones(entry):
    problems, _ = read({"problems": [entry]})
    known = ", ".join(arch.ARCHS)  # the arch table's own list
    with pytest.raises(arch.UnknownArchError, match=rf"^arch: expected one of {known}, got 'gfx9999'"):
        plan(problems, ["gfx942", "gfx9999"])
    with pytest.raises(arch.UnknownArchError, match=rf"^arch: expected one of {known}, got 'gfx9999'"):
        Job.of(problems[0], "gfx9999")


ATTENTION = {"op": "attention", "batch": 2, "heads": 12, "seq_q": 200, "seq_k": 200, "head_dim": 64, "dtype": "f16"}


def test_attention_takes_its_archs_tile_and_explains_it():
    (job,), errors = _jobs(dict(ATTENTION, causal=True, scale=0.125), archs=("gfx1201",))
    spec = job.choice.spec
    assert errors == [] and job.choice.family == "attention_fwd"
    assert (spec.kv_heads, spec.scale, spec.block_m, spec.block_n, spec.waves) == (12, "0.125", 128, 64, 8)
    assert job.choice.config == "mma 16x16x16, block 128x64, waves 8"
    assert job.choice.reasons == (
        "attention_fwd: the one attention family; its tile for gfx1201 d64 (library/attention/tiles.json): "
        "mma 16x16x16, block 128x64, waves 8",
        "workgroups: 48 (2 query blocks of 128 x 12 heads x 2 batch) on 64 CUs",
        "keys: the blocks left of the causal diagonal unmasked, then the diagonal band and any partial block masked",
    )


@pytest.mark.parametrize(
    "fields,arch,message",
    [
        (
            {"head_dim": 96},
            "gfx942",
            r"^problems\[0\]\.head_dim( on gfx942)?: expected a head dim the attention family has a tile for on gfx942 "
            r"\(64, 128\), got 96",
        ),
        ({}, "gfx1250", r"got gfx1250 d64; add a row to library/attention/tiles.json"),
        ({"kv_heads": 5}, "gfx942", r"^problems\[0\]\.kv_heads: expected a divisor of heads \(12\), got 5"),
        ({"mask": "causal"}, "gfx950", r"^problems\[0\]\.mask: expected one of none, padding, got 'causal'"),
    ],
)
def test_attention_refusals_name_the_field(fields, arch, message):
    jobs, errors = _jobs(dict(ATTENTION, **fields), archs=(arch,))
    assert jobs == [] and len(errors) == 1
    assert re.search(message, str(errors[0])), str(errors[0])


POOL = {"op": "pool", "n": 2, "c": 20, "spatial": [9, 11], "kind": "avg", "window": [5, 5], "stride": [2, 2]}


def test_pool_explains_how_the_lanes_split_the_channels():
    (job,), errors = _jobs(dict(POOL, pad=[2, 2], dtype="bf16"), archs=("gfx942",))
    assert errors == [] and job.choice.family == "pool" and job.choice.module == "pool.pool"
    # 20 bf16 channels: two lanes of 8 and a tail lane of 4; 2 x 5 x 6 positions x 3 lanes = 180 lanes, 1 workgroup.
    assert job.choice.config == "8 channels per lane (16-byte loads), a tail lane of 4, 256 lanes"
    assert job.choice.reasons[1:] == (
        "workgroups: 1 of 256 lanes, 3 lanes per output position, on 304 CUs",
        "window: loops clipped to the input, so padding is never read; "
        "the sum is divided by the input elements it covers",
    )
    (job,), _ = _jobs(dict(POOL, layout="NCHW", kind="max", dtype="f32"), archs=("gfx1201",))
    assert (
        job.choice.config == "1 output element per lane (scalar loads: nchw's channels are not contiguous), 256 lanes"
    )


SOFTMAX = {"op": "softmax", "rows": 1536, "dim": 128, "dtype": "f16", "mask": True, "scale": 0.125}


def test_softmax_reads_a_short_row_once_and_explains_the_plan():
    (job,), errors = _jobs(SOFTMAX, archs=("gfx942",))
    assert errors == [] and job.choice.family == "softmax"
    assert job.choice.spec.scale == "0.125" and job.choice.spec.mask
    assert job.choice.config == "one pass, a row per 16 lanes, 8-element vectors"
    # 128 f16 are 16 vectors of 16 bytes: 16 lanes of a 64-lane wave, so a 4-wave workgroup holds 16 rows.
    assert job.choice.reasons == (
        "softmax: the one softmax family: one pass, a row per 16 lanes, 8-element vectors",
        "row: 128 f16 elements in 16 vectors of 16 bytes over 16 lanes, 8 elements a lane: "
        "read once (a lane holds at most lane_elements = 32)",
        "workgroups: 96 of 16 rows (4 waves) on 304 CUs",
    )


def test_softmax_reads_a_long_row_twice():
    (job,), _ = _jobs(dict(SOFTMAX, rows=4, dim=32768, dtype="bf16"), archs=("gfx1201",))
    assert job.choice.config == "two passes, 32 elements a lane a step, a row per 32 lanes, 8-element vectors"
    assert "1024 elements a lane: more than lane_elements = 32, so an online pass" in job.choice.reasons[1]


@pytest.mark.parametrize(
    "fields,message",
    [
        ({"dtype": "f64"}, r"^problems\[0\]\.dtype( on gfx942)?: expected one of f16, bf16, f32, got 'f64'"),
        ({"scale": -1}, r"^problems\[0\]\.scale( on gfx942)?: expected a positive decimal such as '0.125', got '-1'"),
        ({"rows": 2**20, "dim": 2**10}, r"^problems\[0\]\.rows( on gfx942)?: expected every tensor at most"),
    ],
)
def test_softmax_refusals_name_the_field(fields, message):
    jobs, errors = _jobs(dict(SOFTMAX, **fields))


LAYERNORM = {"op": "layernorm", "rows": 512, "dim": 768, "residual": True, "residual_out": True}


def test_norms_take_their_archs_tile_and_explain_it():
    (job,), errors = _jobs(LAYERNORM, archs=("gfx1201",))
    spec = job.choice.spec
    assert errors == [] and job.choice.family == "norm"
    assert (spec.kind, spec.eps, spec.dtype, spec.threads, spec.per_lane) == ("layernorm", "1e-5", "f16", 64, 16)
    assert job.choice.reasons == (
        "norm: the one norm family (layernorm); its tile for gfx1201 dim 768 (library/norm/tiles.json): "
        "64 lanes a row, 16 elements a lane",
        "workgroups: 512 (one a row) on 64 CUs",
        "row: 8-element vectors; held in registers, read once",
    )
    (job,), errors = _jobs({"op": "rmsnorm", "rows": 2, "dim": 65536, "dtype": "f32"})
    assert job.choice.spec.kind == "rmsnorm" and job.choice.reasons[2] == (
        "row: 4-element vectors; 2 chunks of 32768 elements, read twice (statistics, then the output)"
    )


@pytest.mark.parametrize(
    "fields,arch,message",
    [
        ({}, "gfx1100", r"got gfx1100; add its rows to library/norm/tiles.json"),
        ({"eps": "-1"}, "gfx942", r"^problems\[0\]\.eps: expected a positive decimal string"),
        ({"residual": False}, "gfx950", r"^problems\[0\]\.residual_out: expected False without a residual"),
        ({"dtype": "fp8"}, "gfx942", r"^problems\[0\]\.dtype: expected one of f16, bf16, f32, got 'fp8'"),
    ],
)
def test_norm_refusals_name_the_field(fields, arch, message):
    jobs, errors = _jobs(dict(LAYERNORM, **fields), archs=(arch,))
    assert jobs == [] and len(errors) == 1
    assert re.search(message, str(errors[0])), str(errors[0])
