"""Full-size layer shapes of real networks: what conv_igemm_fwd must build.

ResNet-50 (v1.5: the stride in each stage's first 3x3) at batch 32, every
distinct convolution: the 7x7 stem, and per stage the 1x1 reduce, the 3x3
(strided in the stage's first block), the 1x1 expand and the strided 1x1
downsample. Then a 3-D video layer (an R3D/I3D-style 3x3x3 on 16 frames of
56x56), and the depthwise layers of a problems file at batch 32
(depthwise). The numeric gate runs scaled-down problems (cases.py); these are
only built, lowered and compiled (the full-size tests: fullsize.bzl), never run.
"""

import dataclasses

from conv.spec import ConvSpec

BATCH = 32


def _conv(c, k, size, f, stride=1, pad=0):
    return ConvSpec(BATCH, c, k, (size, size), (f, f), stride=(stride, stride), pad=(pad, pad))


# name -> spec, in network order.
RESNET50 = {
    "conv1_7x7_s2": _conv(3, 64, 224, 7, 2, 3),
    "res2_1x1_reduce_first": _conv(64, 64, 56, 1),
    "res2_3x3": _conv(64, 64, 56, 3, 1, 1),
    "res2_1x1_expand": _conv(64, 256, 56, 1),  # res2's downsample is this shape too
    "res2_1x1_reduce": _conv(256, 64, 56, 1),
    "res3_1x1_reduce_first": _conv(256, 128, 56, 1),
    "res3_3x3_s2": _conv(128, 128, 56, 3, 2, 1),
    "res3_1x1_expand": _conv(128, 512, 28, 1),
    "res3_downsample_s2": _conv(256, 512, 56, 1, 2),
    "res3_1x1_reduce": _conv(512, 128, 28, 1),
    "res3_3x3": _conv(128, 128, 28, 3, 1, 1),
    "res4_1x1_reduce_first": _conv(512, 256, 28, 1),
    "res4_3x3_s2": _conv(256, 256, 28, 3, 2, 1),
    "res4_1x1_expand": _conv(256, 1024, 14, 1),
    "res4_downsample_s2": _conv(512, 1024, 28, 1, 2),
    "res4_1x1_reduce": _conv(1024, 256, 14, 1),
    "res4_3x3": _conv(256, 256, 14, 3, 1, 1),
    "res5_1x1_reduce_first": _conv(1024, 512, 14, 1),
    "res5_3x3_s2": _conv(512, 512, 14, 3, 2, 1),
    "res5_1x1_expand": _conv(512, 2048, 7, 1),
    "res5_downsample_s2": _conv(1024, 2048, 14, 1, 2),
    "res5_1x1_reduce": _conv(2048, 512, 7, 1),
    "res5_3x3": _conv(512, 512, 7, 3, 1, 1),
}

VIDEO = {
    "r3d_3x3x3": ConvSpec(8, 64, 64, (16, 56, 56), (3, 3, 3), pad=(1, 1, 1)),
}


# The fields of a conv_fwd entry that give its convolution's shape; the
# others (name, the fused epilogue) do not change what the full-size tests build.
SHAPE_FIELDS = ("n", "c", "k", "spatial", "filter", "stride", "pad", "dilation", "groups", "layout", "dtype")


def shape(entry):
    """The ConvSpec of a conv_fwd entry's shape fields (SHAPE_FIELDS)."""
    return ConvSpec.from_json({k: v for k, v in entry.items() if k in SHAPE_FIELDS})


def depthwise(problems):
    """name -> spec of the distinct depthwise conv_fwd shapes (one filter per
    group) of a problems file ({"problems": [...]}, as catalog/*.json), at
    BATCH, in file order, each under the name of its first entry. A network
    file lists every layer, so a shape repeats (MobileNetV2's blocks); the
    full-size tests build each shape once. MobileNetV2's depthwise layers
    have their one home in catalog/mobilenet_v2.json (at batch 1, for rocke
    build); the full-size tests read them from there (fullsize_emit.py
    --depthwise-from)."""
    out = {}
    for i, entry in enumerate(problems["problems"]):
        if entry["op"] != "conv_fwd":
            continue
        spec = dataclasses.replace(shape(entry), n=BATCH)
        if 1 < spec.groups == spec.c == spec.k and spec not in out.values():
            out[entry.get("name", f"problems[{i}]")] = spec
    return out


# Late ResNet-50 layers whose launch at batch 1 is far too small for the
# machine: the full-size tests compile them split as the planner splits them.
SPLIT_AT_BATCH_1 = ("res3_3x3", "res4_3x3_s2", "res5_3x3", "res5_1x1_expand")

# The issue's acceptance layer: ResNet-50's 3x3 at N=2, C=K=64, 56x56, pad 1.
ACCEPTANCE = {"res2_3x3_n2": ConvSpec(2, 64, 64, (56, 56), (3, 3), pad=(1, 1))}
