"""The cases of the norm family: problems x the archs with tiles (norm.tiles).

Small row counts (the interpreter runs every one) covering what issue 22 asks
of layernorm and rmsnorm: dims 768, 1024 and 4096, and 771 (no multiple of 8:
scalar loads, a lane's last element cut short); with and without the affine
weight (and bias); a residual with and without residual_out; f16, bf16 and
f32. Two problems take a tile smaller than the table's, so that their rows
span several chunks: the statistics combined chunk by chunk, and the row
read twice. Case ids are stable: they name golden entries.
"""

from family.family import Case
from norm.spec import NormSpec
from norm.tiles import TILES, spec_for

# The archs of the tile table, in its order.
ARCHS = tuple(TILES)

# name -> (kind, rows, dim, dtype, eps, options).
PROBLEMS = {
    "ln_f16_d768": ("layernorm", 3, 768, "f16", "1e-5", {}),
    "ln_f16_d1024_residual_out": ("layernorm", 2, 1024, "f16", "1e-5", {"residual": True, "residual_out": True}),
    "ln_bf16_d4096": ("layernorm", 2, 4096, "bf16", "1e-5", {}),
    "ln_f32_d771_plain": ("layernorm", 3, 771, "f32", "1e-5", {"affine": False}),
    "ln_f16_d771_residual": ("layernorm", 2, 771, "f16", "1e-12", {"residual": True}),
    "rms_f16_d4096_residual_out": ("rmsnorm", 2, 4096, "f16", "1e-6", {"residual": True, "residual_out": True}),
    "rms_bf16_d768_plain": ("rmsnorm", 3, 768, "bf16", "1e-6", {"affine": False}),
    "rms_f32_d1024": ("rmsnorm", 2, 1024, "f32", "1e-6", {}),
    "rms_bf16_d771": ("rmsnorm", 2, 771, "bf16", "1e-6", {}),
}

# name -> (kind, rows, dim, dtype, eps, threads, per_lane, options): rows of several chunks.
CHUNKED = {
    "ln_f16_d1200_chunked_residual_out": (
        "layernorm",
        2,
        1200,
        "f16",
        "1e-5",
        64,
        8,
        {"residual": True, "residual_out": True},
    ),
    "rms_f32_d771_chunked": ("rmsnorm", 2, 771, "f32", "1e-6", 64, 8, {}),
}


def cases():
    table = tuple(
        Case(f"{name}_{arch}", arch, spec_for(arch, kind, rows, dim, dtype, eps, **options))
        for name, (kind, rows, dim, dtype, eps, options) in PROBLEMS.items()
        for arch in ARCHS
    )
    chunked = tuple(
        Case(f"{name}_{arch}", arch, NormSpec(kind, rows, dim, dtype, eps, threads, per_lane, **options))
        for name, (kind, rows, dim, dtype, eps, threads, per_lane, options) in CHUNKED.items()
        for arch in ARCHS
    )
    return table + chunked
