"""The cases of the softmax family: problems x target archs.

Small problems (the interpreter runs every one) that together cover what
issue 22 asks: dims 128 and 512 (BERT's attention scores per head), 1000 (a
classifier's), dims that are no multiple of 8 (a narrower vector, a lone
element a lane), a row too long for registers (32768, two rows) and a
two-pass row with a ragged tail (lane_elements cut to 8); with and without a
mask (its -inf entries, a fully masked row), scales other than 1; f16, bf16
and f32; rows that leave a workgroup's last group of lanes without a row.
Every problem runs on each arch of case_archs.ARCHS (library/case_archs.json),
llvm20's expected rejections among them. Case ids are stable: they name
golden entries.
"""

from case_archs import ARCHS
from family.family import Case
from softmax.spec import SoftmaxSpec

# name -> (rows, dim, dtype, options).
PROBLEMS = {
    "softmax_f16_128": (20, 128, "f16", {}),
    "softmax_f16_512_mask_scale": (6, 512, "f16", {"mask": True, "scale": "0.125"}),
    "softmax_bf16_1000": (5, 1000, "bf16", {}),
    "softmax_f32_100_mask": (7, 100, "f32", {"mask": True}),
    "softmax_f16_77_scale": (9, 77, "f16", {"scale": "2.5"}),
    "softmax_f16_32768_mask": (2, 32768, "f16", {"mask": True}),
    "softmax_bf16_3000_two_pass": (3, 3000, "bf16", {"scale": "0.5", "lane_elements": 8}),
}


def cases():
    return tuple(
        Case(f"{name}_{arch}", arch, SoftmaxSpec(rows, dim, dtype, **options))
        for name, (rows, dim, dtype, options) in PROBLEMS.items()
        for arch in ARCHS
    )
