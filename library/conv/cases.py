"""The cases of each conv family: problems x target archs.

Every problem runs on each of gfx942, gfx950 (MFMA-era CDNA), gfx1201 (RDNA4)
and gfx1250; llvm20 does not know gfx1250, so those cases are its expected
rejections. Case ids are stable: they name golden entries.
"""

from conv.spec import ConvSpec
from family.family import Case

ARCHS = ("gfx942", "gfx950", "gfx1201", "gfx1250")

# name -> spec. Small shapes (the interpreter runs every one), chosen to cover
# each spec field: layouts, dtypes, strides, padding, dilation, groups, 3-D.
DIRECT = {
    "2d_nhwc_f16_3x3": ConvSpec(1, 8, 8, (7, 9), (3, 3), pad=(1, 1)),
    "2d_nchw_f32_3x3": ConvSpec(2, 4, 6, (6, 6), (3, 3), layout="NCHW", dtype="f32"),
    "2d_nhwc_bf16_stride2": ConvSpec(1, 6, 4, (9, 8), (3, 3), stride=(2, 2), pad=(1, 1), dtype="bf16"),
    "2d_nchw_f16_dilated": ConvSpec(1, 4, 4, (9, 9), (3, 3), dilation=(2, 2), layout="NCHW"),
    "2d_nhwc_f16_grouped": ConvSpec(1, 8, 12, (6, 7), (3, 3), pad=(1, 1), groups=4),
    "2d_nhwc_f32_depthwise": ConvSpec(2, 8, 8, (5, 6), (3, 3), pad=(1, 1), groups=8, dtype="f32"),
    "2d_nchw_bf16_depthwise_bias": ConvSpec(1, 6, 6, (7, 5), (5, 3), pad=(2, 1), groups=6, layout="NCHW", dtype="bf16", bias_relu=True),
    "2d_nhwc_f16_1x1_bias": ConvSpec(2, 16, 8, (4, 5), (1, 1), bias_relu=True),
    "3d_ndhwc_f16": ConvSpec(1, 4, 4, (4, 5, 5), (3, 3, 3), pad=(1, 1, 1)),
    "3d_ncdhw_f32_stride_groups": ConvSpec(1, 4, 6, (5, 6, 6), (2, 3, 3), stride=(1, 2, 2), groups=2, layout="NCHW", dtype="f32"),
}

IMG2COL = {
    "2d_nhwc_f16_3x3": ConvSpec(1, 8, 8, (7, 9), (3, 3), pad=(1, 1)),
    "2d_nchw_f32_3x3": ConvSpec(2, 4, 6, (6, 6), (3, 3), layout="NCHW", dtype="f32"),
    "2d_nhwc_bf16_stride2": ConvSpec(1, 6, 4, (9, 8), (3, 3), stride=(2, 2), pad=(1, 1), dtype="bf16"),
    "2d_nchw_f16_dilated_pad": ConvSpec(1, 4, 4, (9, 9), (3, 3), pad=(2, 2), dilation=(2, 2), layout="NCHW"),
    "2d_nhwc_f16_5x5_bias": ConvSpec(1, 3, 8, (8, 8), (5, 5), pad=(2, 2), bias_relu=True),
    "2d_nchw_bf16_rect": ConvSpec(2, 5, 3, (6, 10), (1, 3), stride=(1, 3), layout="NCHW", dtype="bf16"),
    "2d_nhwc_f32_1x1": ConvSpec(2, 16, 8, (4, 5), (1, 1), dtype="f32"),
    "2d_nhwc_f16_stride_dilate": ConvSpec(1, 4, 6, (11, 11), (3, 3), stride=(2, 2), dilation=(2, 2), pad=(1, 1)),
    "3d_ndhwc_bf16": ConvSpec(1, 3, 4, (4, 5, 5), (3, 3, 3), pad=(1, 1, 1), dtype="bf16"),
    "3d_ncdhw_f16_bias": ConvSpec(1, 4, 4, (4, 6, 6), (2, 2, 2), stride=(2, 2, 2), layout="NCHW", bias_relu=True),
}


def _cases(problems):
    return tuple(Case(f"{name}_{arch}", arch, spec) for name, spec in problems.items() for arch in ARCHS)


def direct_cases():
    return _cases(DIRECT)


def img2col_cases():
    return _cases(IMG2COL)
