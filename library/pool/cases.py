"""The cases of the pool family: problems x the library's archs (case_archs.json).

Problems the interpreter and the emulator run in seconds, which together
cover what issue 22 asks: max and average; 2-D and 3-D; nhwc and nchw; f16,
bf16 and f32; ResNet-50's max pool (3x3, stride 2, pad 1) at full size
(112x112x64 -> 56x56) and on a small image, and its global average pool
(7x7x2048 -> 1x1); windows larger than the stride; padding on one side
only; count_pad both ways; c not a multiple of the vector (a tail lane
beside full ones, and a tail alone); odd sizes. Case ids are stable: they
name golden entries.
"""

from case_archs import ARCHS
from family.family import Case
from pool.spec import PoolSpec

# name -> PoolSpec fields.
PROBLEMS = {
    # ResNet-50's max pool (112x112x64 -> 56x56), full size, and on a 12x12 image with a batch.
    "max_3x3s2p1_f16_c64_112": dict(
        n=1, c=64, spatial=(112, 112), kind="max", window=(3, 3), stride=(2, 2), pad=(1, 1)
    ),
    "max_3x3s2p1_f16_c64": dict(n=2, c=64, spatial=(12, 12), kind="max", window=(3, 3), stride=(2, 2), pad=(1, 1)),
    # ResNet-50's global average pool, full size.
    "avg_global_7x7_f16_c2048": dict(n=1, c=2048, spatial=(7, 7), kind="avg", window=(7, 7)),
    # A 5x5 window over stride 2, odd sizes, 20 channels: two full bf16 lanes and a tail of 4.
    "avg_5x5s2p2_bf16_c20": dict(
        n=1, c=20, spatial=(9, 11), kind="avg", window=(5, 5), stride=(2, 2), pad=(2, 2), dtype="bf16"
    ),
    # Padding on one side only: low side in h, high side in w; f32 with a tail of 2 channels.
    "max_3x3s2_onesided_f32_c6": dict(
        n=1, c=6, spatial=(8, 9), kind="max", window=(3, 3), stride=(2, 2), pad=(1, 0), pad_end=(0, 1)
    ),
    # High-side padding only, counted: the last window divides by 4 with one input element in it.
    "avg_2x2s2_padend_count_f32_c12": dict(
        n=2, c=12, spatial=(7, 7), kind="avg", window=(2, 2), pad_end=(1, 1), count_pad=True, dtype="f32"
    ),
    # Three channels: every lane is a tail.
    "max_2x2s1_bf16_c3": dict(n=1, c=3, spatial=(5, 6), kind="max", window=(2, 2), stride=(1, 1), dtype="bf16"),
    # 3-D, channels last.
    "max3d_3x3x3s2p1_f16_c16": dict(
        n=1, c=16, spatial=(5, 6, 7), kind="max", window=(3, 3, 3), stride=(2, 2, 2), pad=(1, 1, 1)
    ),
    # 3-D, channels first, counting the padding.
    "avg3d_2x3x3s1_nchw_count_bf16": dict(
        n=1,
        c=3,
        spatial=(3, 5, 4),
        kind="avg",
        window=(2, 3, 3),
        stride=(1, 2, 1),
        pad=(1, 1, 1),
        pad_end=(0, 1, 1),
        count_pad=True,
        layout="NCHW",
        dtype="bf16",
    ),
    # Channels first: ResNet's max pool shape on a small odd image.
    "max_3x3s2p1_nchw_f32": dict(
        n=2, c=5, spatial=(11, 9), kind="max", window=(3, 3), stride=(2, 2), pad=(1, 1), layout="NCHW", dtype="f32"
    ),
    # Channels first, a global average whose rows are longer than lanes.json's unroll: a loop.
    "avg_global_nchw_f16": dict(n=2, c=7, spatial=(5, 12), kind="avg", window=(5, 12), layout="NCHW"),
}


def cases():
    return tuple(
        Case(f"{name}_{arch}", arch, PoolSpec(**fields)) for name, fields in PROBLEMS.items() for arch in ARCHS
    )
