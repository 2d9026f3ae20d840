"""The cases of each conv family: problems x target archs.

Every problem runs on each arch of case_archs.ARCHS (library/case_archs.json),
llvm20's expected rejections among them. Case ids are stable: they name golden
entries.
"""

from case_archs import ARCHS
from conv.spec import ConvSpec
from family.family import Case

# name -> spec. Small shapes (the interpreter runs every one), chosen to cover
# each spec field: layouts, dtypes, strides, padding, dilation, groups, 3-D.
DIRECT = {
    "2d_nhwc_f16_3x3": ConvSpec(1, 8, 8, (7, 9), (3, 3), pad=(1, 1)),
    "2d_nchw_f32_3x3": ConvSpec(2, 4, 6, (6, 6), (3, 3), layout="NCHW", dtype="f32"),
    "2d_nhwc_bf16_stride2": ConvSpec(1, 6, 4, (9, 8), (3, 3), stride=(2, 2), pad=(1, 1), dtype="bf16"),
    "2d_nchw_f16_dilated": ConvSpec(1, 4, 4, (9, 9), (3, 3), dilation=(2, 2), layout="NCHW"),
    "2d_nhwc_f16_grouped": ConvSpec(1, 8, 12, (6, 7), (3, 3), pad=(1, 1), groups=4),
    "2d_nhwc_f32_depthwise": ConvSpec(2, 8, 8, (5, 6), (3, 3), pad=(1, 1), groups=8, dtype="f32"),
    "2d_nchw_bf16_depthwise_bias": ConvSpec(
        1, 6, 6, (7, 5), (5, 3), pad=(2, 1), groups=6, layout="NCHW", dtype="bf16", bias=True, activation="relu"
    ),
    "2d_nhwc_f16_1x1_bias": ConvSpec(2, 16, 8, (4, 5), (1, 1), bias=True, activation="relu"),
    "3d_ndhwc_f16": ConvSpec(1, 4, 4, (4, 5, 5), (3, 3, 3), pad=(1, 1, 1)),
    "3d_ncdhw_f32_stride_groups": ConvSpec(
        1, 4, 6, (5, 6, 6), (2, 3, 3), stride=(1, 2, 2), groups=2, layout="NCHW", dtype="f32"
    ),
    # Epilogues: MobileNetV2's ReLU6 with a residual before it; erf GELU and a scale, channels-first.
    "epilogue_relu6_residual_before": ConvSpec(
        1, 8, 8, (5, 5), (3, 3), pad=(1, 1), bias=True, activation="relu6", residual="before_activation"
    ),
    "epilogue_nchw_bf16_gelu_erf_scale": ConvSpec(
        1, 4, 6, (5, 6), (3, 3), layout="NCHW", dtype="bf16", activation="gelu_erf", scale="0.5"
    ),
}

IMG2COL = {
    "2d_nhwc_f16_3x3": ConvSpec(1, 8, 8, (7, 9), (3, 3), pad=(1, 1)),
    "2d_nchw_f32_3x3": ConvSpec(2, 4, 6, (6, 6), (3, 3), layout="NCHW", dtype="f32"),
    "2d_nhwc_bf16_stride2": ConvSpec(1, 6, 4, (9, 8), (3, 3), stride=(2, 2), pad=(1, 1), dtype="bf16"),
    "2d_nchw_f16_dilated_pad": ConvSpec(1, 4, 4, (9, 9), (3, 3), pad=(2, 2), dilation=(2, 2), layout="NCHW"),
    "2d_nhwc_f16_5x5_bias": ConvSpec(1, 3, 8, (8, 8), (5, 5), pad=(2, 2), bias=True, activation="relu"),
    "2d_nchw_bf16_rect": ConvSpec(2, 5, 3, (6, 10), (1, 3), stride=(1, 3), layout="NCHW", dtype="bf16"),
    "2d_nhwc_f32_1x1": ConvSpec(2, 16, 8, (4, 5), (1, 1), dtype="f32"),
    "2d_nhwc_f16_stride_dilate": ConvSpec(1, 4, 6, (11, 11), (3, 3), stride=(2, 2), dilation=(2, 2), pad=(1, 1)),
    "3d_ndhwc_bf16": ConvSpec(1, 3, 4, (4, 5, 5), (3, 3, 3), pad=(1, 1, 1), dtype="bf16"),
    "3d_ncdhw_f16_bias": ConvSpec(
        1, 4, 4, (4, 6, 6), (2, 2, 2), stride=(2, 2, 2), layout="NCHW", bias=True, activation="relu"
    ),
    # Epilogue: tanh GELU with a residual after it and a scale of 2, f32.
    "epilogue_f32_gelu_tanh_residual_after": ConvSpec(
        1, 4, 6, (6, 6), (3, 3), pad=(1, 1), dtype="f32", activation="gelu_tanh", residual="after_activation", scale="2"
    ),
}


# Layer shapes of real networks, scaled down so the interpreter runs them,
# then edge shapes. Each names what it covers in conv_igemm_fwd: blocks
# wholly inside the GEMM (the tile's fast loop and vector stores, M >= 128
# pixels and K/groups >= 64 filters), the vector gather (NHWC, C/groups a
# multiple of 8) and the per-element one, grids in x, y and z.
IGEMM_FWD = {
    # ResNet: res2's 3x3 with its channels (C = K = 64, k = 576: 18 k steps) on 28x28, the
    # case `rocke isa` is measured on; then 1x1, 3x3 (two 128-pixel blocks wholly inside, a
    # k tail of 16), strided.
    "resnet50_3x3_c64": ConvSpec(1, 64, 64, (28, 28), (3, 3), pad=(1, 1)),
    "resnet_1x1_f16": ConvSpec(2, 32, 64, (8, 8), (1, 1)),
    "resnet_3x3_f16": ConvSpec(2, 16, 64, (8, 8), (3, 3), pad=(1, 1)),
    "resnet_3x3_stride2_bf16": ConvSpec(2, 16, 32, (9, 9), (3, 3), stride=(2, 2), pad=(1, 1), dtype="bf16"),
    "resnet_1x1_stride2_bias": ConvSpec(1, 32, 72, (8, 8), (1, 1), stride=(2, 2), bias=True, activation="relu"),
    # ResNeXt: grouped 3x3, 8 channels per group (vector gather) and 4 (per element).
    "resnext_grouped_f16": ConvSpec(1, 32, 32, (6, 6), (3, 3), pad=(1, 1), groups=4),
    "resnext_grouped_c4_bf16_bias": ConvSpec(
        1, 32, 16, (5, 5), (3, 3), pad=(1, 1), groups=8, dtype="bf16", bias=True, activation="relu"
    ),
    # UNet: 3x3 with C and K not multiples of the tile (12 and 20), bias + relu; a dilated one.
    "unet_3x3_odd_bias": ConvSpec(1, 12, 20, (10, 10), (3, 3), pad=(1, 1), bias=True, activation="relu"),
    "unet_dilated_bf16": ConvSpec(1, 16, 16, (9, 9), (3, 3), pad=(2, 2), dilation=(2, 2), dtype="bf16"),
    # 3-D video: 3x3x3, and a (1, 2, 2)-strided one with bias.
    "video_3d_f16": ConvSpec(1, 8, 16, (4, 6, 6), (3, 3, 3), pad=(1, 1, 1)),
    "video_3d_stride_bf16_bias": ConvSpec(
        1, 16, 8, (3, 7, 7), (3, 3, 3), stride=(1, 2, 2), pad=(1, 1, 1), dtype="bf16", bias=True, activation="relu"
    ),
    # Edges: one output pixel; a filter as large as the padded input.
    "single_pixel": ConvSpec(1, 16, 8, (3, 3), (3, 3)),
    "filter_fills_padded_input_bf16": ConvSpec(1, 8, 8, (5, 5), (7, 7), pad=(1, 1), dtype="bf16"),
    # The stepped gather (C/groups a multiple of the k step, gather_address.stepped) where its
    # fast loop runs (blocks of 128 pixels and 64 filters wholly inside): stride 2 with
    # dilation 2 and padding; stride 3 with padding past half the filter (whole taps in it);
    # 3-D and grouped; C/groups = 96, not a power of two (a multiply-and-shift tap).
    "stepped_stride2_dilated_bf16": ConvSpec(
        2, 32, 64, (16, 16), (3, 3), stride=(2, 2), pad=(2, 2), dilation=(2, 2), dtype="bf16"
    ),
    "stepped_stride3_pad3": ConvSpec(1, 32, 64, (34, 34), (3, 3), stride=(3, 3), pad=(3, 3)),
    "stepped_3d_grouped": ConvSpec(1, 64, 128, (4, 6, 6), (3, 3, 3), pad=(1, 1, 1), groups=2),
    "stepped_c96": ConvSpec(1, 96, 64, (12, 12), (3, 3), pad=(1, 1)),
    # Channels-first (per-element gather and stores), 2-D and 3-D.
    "nchw_3x3_bias": ConvSpec(1, 8, 12, (6, 6), (3, 3), pad=(1, 1), layout="NCHW", bias=True, activation="relu"),
    # Epilogues. ResNet-50's bottleneck end: a 1x1 with the residual added before the ReLU, in
    # blocks wholly inside (M = 128) and at the edge (K = 72). MobileNetV2's projection: no
    # activation, the residual added after. BERT's FFN: erf GELU, bf16, a scale, odd K. Tanh
    # GELU with the residual after it, channels-first.
    "epilogue_bottleneck_residual_relu": ConvSpec(
        2, 32, 72, (8, 8), (1, 1), bias=True, activation="relu", residual="before_activation"
    ),
    "epilogue_projection_residual": ConvSpec(1, 24, 16, (6, 6), (1, 1), bias=True, residual="after_activation"),
    "epilogue_gelu_erf_scale_bf16": ConvSpec(
        1, 16, 20, (5, 5), (3, 3), pad=(1, 1), dtype="bf16", bias=True, activation="gelu_erf", scale="0.125"
    ),
    "epilogue_nchw_gelu_tanh_residual_after": ConvSpec(
        1, 8, 12, (6, 6), (3, 3), pad=(1, 1), layout="NCHW", activation="gelu_tanh", residual="after_activation"
    ),
    "ncdhw_grouped_bf16": ConvSpec(1, 8, 8, (3, 4, 4), (2, 3, 3), pad=(0, 1, 1), groups=2, layout="NCHW", dtype="bf16"),
}

# Row runs (IgemmSpec.row_runs, conv.row_runs): small C, each filter row one run of vector
# loads. Every case has a block of its fast loop with padding on every side (of its 2-D
# plane), and guarded blocks before fast_from or past fast_to: the stem (7x7, C = 3, stride
# 2, bias and ReLU); C = 6 (a run of 18), bf16; 3-D (6 rows of 9); stride 3, dilation 2 in
# y and padding past half the filter (a run of 15). Block 1 of each spans an image's
# bottom or the next one's top.
IGEMM_FWD_ROWS = {
    "rows_stem_7x7_s2": ConvSpec(2, 3, 64, (24, 24), (7, 7), stride=(2, 2), pad=(3, 3), bias=True, activation="relu"),
    "rows_c6_3x3_bf16": ConvSpec(2, 6, 64, (16, 16), (3, 3), pad=(1, 1), dtype="bf16"),
    "rows_3d_c3": ConvSpec(3, 3, 64, (3, 8, 8), (2, 3, 3), pad=(0, 1, 1)),
    "rows_s3_dilated_pad4": ConvSpec(3, 3, 64, (32, 32), (5, 5), stride=(3, 3), pad=(4, 4), dilation=(2, 1)),
}

# Split-K (IgemmSpec.split_k = S): name -> (problem, S). Each kernel writes S
# f32 partial sums; the reductions mostly do not divide evenly: into whole k
# steps (a partial last step) nor the steps into S (slices of unequal steps).
IGEMM_FWD_SPLIT = {
    # res5-like 3x3 (few pixels, long reduction): 18 steps in 4 slices of 4-5, vector gather.
    "splitk_resnet_3x3_s4": (ConvSpec(1, 64, 64, (7, 7), (3, 3), pad=(1, 1)), 4),
    # Channels-first with bias (the reduce applies it): k = 108, 4 steps (the last 12 deep) in 3.
    "splitk_nchw_odd_bias_s3": (
        ConvSpec(1, 12, 20, (6, 6), (3, 3), pad=(1, 1), layout="NCHW", bias=True, activation="relu"),
        3,
    ),
    # Grouped (z = split x groups + group): k = 144, 5 steps in 2 slices of 2 and 3.
    "splitk_grouped_bf16_s2": (ConvSpec(1, 32, 32, (5, 5), (3, 3), pad=(1, 1), groups=2, dtype="bf16"), 2),
    # 3-D: k = 216, 7 steps in 4.
    "splitk_video_3d_s4": (ConvSpec(1, 8, 16, (3, 4, 4), (3, 3, 3), pad=(1, 1, 1)), 4),
    # A single output pixel split as far as it goes: one k step per split, the last partial.
    "splitk_single_pixel_s5": (ConvSpec(1, 16, 8, (3, 3), (3, 3)), 5),
    # Channels-first 1x1, bf16, batch 2: 2 whole steps in 2.
    "splitk_nchw_1x1_bf16_s2": (ConvSpec(2, 64, 32, (4, 4), (1, 1), layout="NCHW", dtype="bf16"), 2),
    # An epilogue (the reduce applies it; the split kernel is the plain one): 144 = 5 steps in 2.
    "splitk_epilogue_gelu_residual_s2": (
        ConvSpec(
            1,
            16,
            16,
            (4, 4),
            (3, 3),
            pad=(1, 1),
            bias=True,
            activation="gelu_erf",
            residual="before_activation",
            scale="0.5",
        ),
        2,
    ),
}


# conv_igemm_dgrad's problems (the GEMM: input pixels x C/groups, reduced over
# K/groups x taps). Real layers scaled down, then stride > 1 in every form the
# gather's mask must get right (stride 2 and 3, with padding and dilation,
# 1x1, rectangular, 3-D, input pixels no output reaches), then edges. Each
# names what it covers: blocks wholly inside the GEMM (M >= 128 input pixels,
# C/groups >= 64), the vector dy gather (NHWC, K/groups a multiple of 8) and
# the per-element one, grids in x, y and z.
IGEMM_DGRAD = {
    # ResNet: a res4-like 3x3 (C = K = 64, k = 576: a whole block and an edge one);
    # 1x1 (C = 96: a whole column block and an edge one, one k step); 3x3 bf16 (k tail of 16).
    "resnet50_3x3_c64": ConvSpec(1, 64, 64, (14, 14), (3, 3), pad=(1, 1)),
    "resnet_1x1_f16": ConvSpec(2, 96, 32, (8, 8), (1, 1)),
    "resnet_3x3_bf16": ConvSpec(2, 64, 16, (8, 8), (3, 3), pad=(1, 1), dtype="bf16"),
    # Strided: ResNet's 3x3 stride 2 (a whole block) and 1x1 stride 2 (odd pixels get
    # zero); the stem's 7x7 stride 2 with C = 3; an input whose last pixel no output
    # reaches; stride 3 with padding and dilation; 5x5 stride 3; a 2 x 3 stride;
    # UNet's 4x4 stride-2 downsampling.
    "resnet_3x3_stride2": ConvSpec(2, 64, 32, (10, 10), (3, 3), stride=(2, 2), pad=(1, 1)),
    "resnet_1x1_stride2_bf16": ConvSpec(2, 64, 32, (8, 8), (1, 1), stride=(2, 2), dtype="bf16"),
    "resnet_stem_7x7_stride2": ConvSpec(1, 3, 16, (16, 16), (7, 7), stride=(2, 2), pad=(3, 3)),
    "stride2_uncovered_edge": ConvSpec(1, 16, 24, (10, 11), (3, 3), stride=(2, 2)),
    "stride3_pad_dilation_bf16": ConvSpec(
        1, 8, 16, (13, 12), (3, 3), stride=(3, 3), pad=(2, 1), dilation=(2, 2), dtype="bf16"
    ),
    "stride3_5x5": ConvSpec(1, 16, 8, (11, 11), (5, 5), stride=(3, 3), pad=(2, 2)),
    "stride_2x3_rect_bf16": ConvSpec(2, 8, 8, (8, 9), (2, 3), stride=(2, 3), pad=(0, 1), dtype="bf16"),
    "unet_down_4x4_stride2": ConvSpec(1, 24, 16, (12, 12), (4, 4), stride=(2, 2), pad=(1, 1)),
    # The one stride phase of a 1x1 filter (IgemmSpec.dgrad_one_phase): stride 2 on an odd
    # input (its last cells cut), stride 3 grouped on inputs 1 and 2 past a whole cell.
    "phase_1x1_stride2": ConvSpec(2, 64, 64, (15, 16), (1, 1), stride=(2, 2)),
    "phase_1x1_stride3_grouped_bf16": ConvSpec(1, 32, 64, (10, 11), (1, 1), stride=(3, 3), groups=2, dtype="bf16"),
    # ResNeXt: grouped 3x3, 8 filters per group (vector gather) and 4 strided (per element).
    "resnext_grouped_f16": ConvSpec(1, 32, 32, (6, 6), (3, 3), pad=(1, 1), groups=4),
    "resnext_grouped_stride2_bf16": ConvSpec(
        1, 32, 32, (8, 8), (3, 3), stride=(2, 2), pad=(1, 1), groups=8, dtype="bf16"
    ),
    # UNet: C and K not multiples of the tile (20 and 12: per-element dy), a dilated one.
    "unet_3x3_odd": ConvSpec(1, 20, 12, (10, 10), (3, 3), pad=(1, 1)),
    "unet_dilated_bf16": ConvSpec(1, 16, 16, (9, 9), (3, 3), pad=(2, 2), dilation=(2, 2), dtype="bf16"),
    # 3-D video: 3x3x3; (1, 2, 2)-strided; 1x1x1 with stride 2 everywhere.
    "video_3d_f16": ConvSpec(1, 16, 8, (4, 6, 6), (3, 3, 3), pad=(1, 1, 1)),
    "video_3d_stride_bf16": ConvSpec(1, 8, 16, (3, 7, 7), (3, 3, 3), stride=(1, 2, 2), pad=(1, 1, 1), dtype="bf16"),
    "video_3d_1x1_stride2": ConvSpec(1, 8, 8, (5, 5, 5), (1, 1, 1), stride=(2, 2, 2)),
    # Edges: a single input pixel; a single output pixel spread over 9 input pixels; a
    # filter as large as the padded input.
    "single_pixel": ConvSpec(1, 8, 16, (1, 1), (1, 1)),
    "single_output_pixel": ConvSpec(1, 8, 16, (3, 3), (3, 3)),
    "filter_fills_padded_input_bf16": ConvSpec(1, 8, 8, (5, 5), (7, 7), pad=(1, 1), dtype="bf16"),
    # The stepped gathers' fast loop (K/groups a multiple of the k step, blocks wholly
    # inside): stride 2 with dilation 2 and padding; stride 3 with dilation 2 (a tap's
    # output row by a floor) and padding 3, more than half the filter; stride 2 with
    # input pixels no output reaches; 3-D grouped and strided.
    "stepped_stride2_dilation2": ConvSpec(1, 64, 32, (12, 12), (3, 3), stride=(2, 2), pad=(2, 2), dilation=(2, 2)),
    "stepped_stride3_dilation2_pad3_bf16": ConvSpec(
        1, 64, 32, (12, 12), (3, 3), stride=(3, 3), pad=(3, 3), dilation=(2, 2), dtype="bf16"
    ),
    "stepped_stride2_uncovered_edge": ConvSpec(1, 64, 32, (11, 12), (3, 3), stride=(2, 2)),
    "stepped_3d_grouped_stride": ConvSpec(1, 128, 64, (2, 8, 8), (3, 3, 3), stride=(1, 2, 2), pad=(1, 1, 1), groups=2),
    # Channels-first (per-element gathers and stores), 2-D, strided, 3-D grouped strided.
    "nchw_3x3": ConvSpec(1, 12, 8, (6, 6), (3, 3), pad=(1, 1), layout="NCHW"),
    "nchw_stride2_bf16": ConvSpec(1, 8, 8, (7, 7), (3, 3), stride=(2, 2), pad=(1, 1), layout="NCHW", dtype="bf16"),
    "ncdhw_grouped_stride": ConvSpec(
        1, 8, 8, (3, 6, 6), (2, 3, 3), stride=(1, 2, 2), pad=(0, 1, 1), groups=2, layout="NCHW"
    ),
}


def _cases(problems):
    return tuple(Case(f"{name}_{arch}", arch, spec) for name, spec in problems.items() for arch in ARCHS)


def direct_cases():
    return _cases(DIRECT)


def img2col_cases():
    return _cases(IMG2COL)


def igemm_fwd_cases():
    """Each problem on each arch, with that arch's tile (conv.igemm_tiles)."""
    import dataclasses

    from conv.igemm_tiles import spec_for  # the tile table imports the spec, as this module does

    plain = tuple(
        Case(f"{name}_{arch}", arch, spec_for(arch, spec)) for name, spec in IGEMM_FWD.items() for arch in ARCHS
    )
    split = tuple(
        Case(f"{name}_{arch}", arch, dataclasses.replace(spec_for(arch, spec), split_k=s))
        for name, (spec, s) in IGEMM_FWD_SPLIT.items()
        for arch in ARCHS
    )
    rows = tuple(
        Case(f"{name}_{arch}", arch, dataclasses.replace(spec_for(arch, spec), row_runs=True))
        for name, spec in IGEMM_FWD_ROWS.items()
        for arch in ARCHS
    )
    return plain + split + rows


# conv_igemm_wgrad: name -> (spec, split, mode). Layer shapes of real networks
# scaled down (the reduction, N x output pixels, kept to a few hundred so the
# interpreter runs them), then edge shapes, then split-K. Each names what it
# covers: each block of conv.wgrad_spec.tile_for (64 x 64, 64 x 256, 128 x
# 128), blocks wholly inside the GEMM (the fast loop) and partial ones, k
# tails, column-major A (NHWC) and the gathered one (NCHW), grids in x, y
# and z.
IGEMM_WGRAD = {
    # ResNet: res2's 3x3 (C = K = 64, 64 x 256 blocks: 2 wholly inside and a partial third, 6 k steps
    # and a tail of 4); 1x1; strided.
    "resnet_3x3_c64": (ConvSpec(1, 64, 64, (14, 14), (3, 3), pad=(1, 1)), 1, "none"),
    # K = 128: 128 x 128 blocks, 2 wholly inside and a partial third (288 columns), 3 k steps and a tail of 4.
    "resnet_3x3_k128": (ConvSpec(1, 32, 128, (10, 10), (3, 3), pad=(1, 1)), 1, "none"),
    # 9 k steps: more than LLVM unrolls whole (its upper bound is 8), so the fast loop stays a loop.
    "resnet_1x1_f16": (ConvSpec(2, 64, 64, (12, 12), (1, 1)), 1, "none"),
    # 1x1, stride 1, unpadded: B is x itself (igemm_wgrad.plain_input). A 128 x 128 block inside and a
    # partial one (136 columns); 3 k steps (the last 17 rows) over 2 splits, the second from row 32.
    "resnet_1x1_k128_two_stage": (ConvSpec(1, 136, 128, (9, 9), (1, 1)), 2, "two_stage"),
    # M = 256, N = 64: a 256 x 64 block, 9 k steps and a tail of 1.
    "resnet_1x1_k256": (ConvSpec(1, 64, 256, (17, 17), (1, 1)), 1, "none"),
    # Two groups of 64 channels: the second group's columns start at channel 64 of x's rows.
    "resnext_1x1_grouped_bf16": (ConvSpec(1, 128, 128, (6, 6), (1, 1), groups=2, dtype="bf16"), 1, "none"),
    "resnet_3x3_stride2_bf16": (
        ConvSpec(2, 16, 32, (9, 9), (3, 3), stride=(2, 2), pad=(1, 1), dtype="bf16"),
        1,
        "none",
    ),
    # 1x1 stride 2 with K = 72: two filter blocks, the second partial.
    "resnet_1x1_stride2_k72_bf16": (ConvSpec(1, 64, 72, (8, 8), (1, 1), stride=(2, 2), dtype="bf16"), 1, "none"),
    # ResNeXt: grouped 3x3, 8 and 4 channels per group.
    "resnext_grouped_f16": (ConvSpec(2, 32, 32, (6, 6), (3, 3), pad=(1, 1), groups=4), 1, "none"),
    "resnext_grouped_c4_bf16": (ConvSpec(1, 32, 16, (5, 5), (3, 3), pad=(1, 1), groups=8, dtype="bf16"), 1, "none"),
    # UNet: C and K not multiples of the tile (12 and 20); a dilated one.
    "unet_3x3_odd": (ConvSpec(1, 12, 20, (10, 10), (3, 3), pad=(1, 1)), 1, "none"),
    "unet_dilated_bf16": (ConvSpec(1, 16, 16, (9, 9), (3, 3), pad=(2, 2), dilation=(2, 2), dtype="bf16"), 1, "none"),
    # 3-D video: 3x3x3, and a (1, 2, 2)-strided one.
    "video_3d_f16": (ConvSpec(1, 8, 16, (4, 6, 6), (3, 3, 3), pad=(1, 1, 1)), 1, "none"),
    "video_3d_stride_bf16": (
        ConvSpec(1, 16, 8, (3, 7, 7), (3, 3, 3), stride=(1, 2, 2), pad=(1, 1, 1), dtype="bf16"),
        1,
        "none",
    ),
    # Edges: one output pixel (a reduction of 1); a filter as large as the padded input.
    "single_pixel": (ConvSpec(1, 16, 8, (3, 3), (3, 3)), 1, "none"),
    "filter_fills_padded_input_bf16": (ConvSpec(1, 8, 8, (5, 5), (7, 7), pad=(1, 1), dtype="bf16"), 1, "none"),
    # Channels-first: dy gathered element by element (36 pixels) and in 16-byte units (32 pixels).
    "nchw_3x3": (ConvSpec(1, 8, 12, (6, 6), (3, 3), pad=(1, 1), layout="NCHW"), 1, "none"),
    "ncdhw_grouped_bf16": (
        ConvSpec(2, 8, 8, (3, 4, 4), (2, 3, 3), pad=(0, 1, 1), groups=2, layout="NCHW", dtype="bf16"),
        1,
        "none",
    ),
    # Split-K. Two-stage: 7 k steps over 4 splits (1, 2, 2, 2; the last with the k tail) in
    # blocks wholly inside; grouped (z = groups x splits); channels-first.
    "resnet_3x3_c64_two_stage": (ConvSpec(2, 64, 64, (10, 10), (3, 3), pad=(1, 1)), 4, "two_stage"),
    "resnext_grouped_two_stage_bf16": (
        ConvSpec(2, 32, 32, (6, 6), (3, 3), pad=(1, 1), groups=4, dtype="bf16"),
        2,
        "two_stage",
    ),
    "nchw_two_stage": (ConvSpec(4, 8, 12, (4, 4), (3, 3), pad=(1, 1), layout="NCHW"), 2, "two_stage"),
    # Atomic: 1x1 stride 2 over 2 splits; 3-D over 3 (5 k steps: 1, 2, 2).
    "resnet_1x1_stride2_atomic_bf16": (ConvSpec(2, 64, 72, (12, 12), (1, 1), stride=(2, 2), dtype="bf16"), 2, "atomic"),
    "video_3d_atomic": (ConvSpec(1, 8, 16, (4, 6, 6), (3, 3, 3), pad=(1, 1, 1)), 3, "atomic"),
}


def igemm_wgrad_cases():
    """Each problem on each arch, with that arch's tile (conv.wgrad_spec)."""
    from conv.wgrad_spec import spec_for  # the spec module imports the tile table, which imports the spec

    return tuple(
        Case(f"{name}_{arch}", arch, spec_for(arch, conv, split, mode))
        for name, (conv, split, mode) in IGEMM_WGRAD.items()
        for arch in ARCHS
    )


def igemm_dgrad_cases():
    """Each dgrad problem on each arch, with conv_igemm_fwd's tile table (conv.igemm_tiles)."""
    from conv.igemm_tiles import spec_for

    return tuple(
        Case(f"{name}_{arch}", arch, spec_for(arch, spec)) for name, spec in IGEMM_DGRAD.items() for arch in ARCHS
    )
