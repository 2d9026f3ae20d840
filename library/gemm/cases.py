"""The cases of the gemm family: problems x target archs, each with its
arch's tile (gemm.tiles).

Every problem but the fp8 ones runs on each arch of case_archs.ARCHS
(library/case_archs.json), llvm20's expected rejections among them. fp8
(f8e4m3) has a matrix op on gfx950 only. Case ids are stable: they name
golden entries.
"""

from case_archs import ARCHS
from family.family import Case
from gemm.tiles import spec_for

# name -> (archs, m, n, k, dtype, out, options). Small shapes (the interpreter
# runs every one): the 128x128x32 tile on a problem of two k steps; then
# problems whose blocks lie wholly inside C (the tile's fast loop, a k tail
# after it where k is not a multiple of 32, vector stores, bias included)
# beside edge blocks (m or n past a multiple of 128: every access checked),
# and small problems of edge blocks only; every layout pair, every output
# type, bias and relu; then the other epilogues.
PROBLEMS = {
    "gemm_f16_128x128x32": (ARCHS, 128, 128, 64, "f16", "f16", {}),
    "gemm_bf16_edge_f32": (ARCHS, 100, 72, 40, "bf16", "f32", {}),
    "gemm_f16_acol_bias": (ARCHS, 200, 256, 72, "f16", "f16", {"layout_a": "col", "bias": True, "activation": "relu"}),
    "gemm_f16_bcol_bf16": (ARCHS, 256, 136, 100, "f16", "bf16", {"layout_b": "col"}),
    "gemm_bf16_acol_bcol_bias_f32": (
        ARCHS,
        64,
        50,
        33,
        "bf16",
        "f32",
        {"layout_a": "col", "layout_b": "col", "bias": True, "activation": "relu"},
    ),
    # A classifier at batch 1 (ResNet-50's fc1000 in small): m = 1, every block an edge one.
    "gemm_f16_m1_bcol_bias": (ARCHS, 1, 200, 64, "f16", "f16", {"layout_b": "col", "bias": True}),
    "gemm_fp8_f32": (("gfx950",), 256, 128, 80, "fp8", "f32", {}),
    "gemm_fp8_acol_bcol_bias_f16": (
        ("gfx950",),
        136,
        256,
        64,
        "fp8",
        "f16",
        {"layout_a": "col", "layout_b": "col", "bias": True, "activation": "relu"},
    ),
    "gemm_fp8_bcol_bf16": (("gfx950",), 33, 47, 100, "fp8", "bf16", {"layout_b": "col"}),
    # Epilogues. BERT's FFN up-projection: erf GELU after the bias, an inner block and edge
    # ones; its output projection: the residual added (no activation) and a scale; tanh GELU
    # with the residual after it, f32; ReLU6 with the residual before it, bf16.
    "gemm_f16_gelu_erf_bias": (ARCHS, 136, 200, 64, "f16", "f16", {"bias": True, "activation": "gelu_erf"}),
    "gemm_bf16_residual_scale": (
        ARCHS,
        72,
        64,
        40,
        "bf16",
        "bf16",
        {"bias": True, "residual": "after_activation", "scale": "0.5"},
    ),
    "gemm_f16_gelu_tanh_residual_after_f32": (
        ARCHS,
        40,
        56,
        48,
        "f16",
        "f32",
        {"layout_b": "col", "activation": "gelu_tanh", "residual": "after_activation"},
    ),
    "gemm_bf16_relu6_residual_before": (
        ARCHS,
        50,
        72,
        32,
        "bf16",
        "bf16",
        {"layout_a": "col", "bias": True, "activation": "relu6", "residual": "before_activation", "scale": "2"},
    ),
}


def cases():
    return tuple(
        Case(f"{name}_{arch}", arch, spec_for(arch, m, n, k, dtype, out, **options))
        for name, (archs, m, n, k, dtype, out, options) in PROBLEMS.items()
        for arch in archs
    )
