"""Lane layouts of the matrix-core ops, from AMD's documentation.

For each layout id of platform/arch/mma_forms.json: where element v of lane
l's A, B and C/D fragment sits in the matrices, D[i][j] = sum_k A[i][k] B[k][j]
+ C[i][j]. Which (op id, arch generation) uses which layout is that file's data;
LAYOUTS below is built from it. C/D is data too, platform/arch/mma_layouts.json
(the tile places its accumulators by the same file); the sources below are
those it was written from, and layouts_test checks it against [S1].
Written from the sources below, not from platform/tile; LAYOUTS.md (beside
this file) holds the research notes with quotes. layouts_test checks every
entry the calculator [S1] covers against its output (testdata/).

  [S1] AMD Matrix Instruction Calculator (ROCm/amd_matrix_instruction_calculator,
       matrix_calculator.py @ 2ef9189, `--detail-instruction` output) for
       CDNA2/3 (gfx90a, gfx942) and RDNA3/4 (gfx11, gfx12).
  [S3] composable_kernel ck_tile warp_gemm_attribute_mfma_impl.hpp (gfx950 16x16x32, 32x32x16),
       no AMD ISA-level source found: unverified.
  [S4] triton LinearLayoutConversions.cpp, WMMA version 3 (gfx1250),
       no AMD ISA-level source found: unverified.
"""

import dataclasses

from arch.mma_forms import FORMS
from arch.mma_layouts import C_PLACEMENTS


@dataclasses.dataclass(frozen=True)
class Layout:
    a: object  # (lane, v) -> (i, k)
    b: object  # (lane, v) -> (k, j)
    c: object  # (lane, v) -> (i, j)


# [S1] v_mfma_f32_16x16x16_f16 / _bf16: "A k: 4 * floor(lane / 16) + ...",
# "C or D i: 4 * floor(lane / 16) + (GPR_num % 4)", "C or D j: (lane % 16)".
MFMA_16x16x16 = Layout(
    a=lambda l, v: (l % 16, 4 * (l // 16) + v),
    b=lambda l, v: (4 * (l // 16) + v, l % 16),
    c=C_PLACEMENTS["mfma_16x16x16"].at,
)
# [S1] v_mfma_f32_32x32x8_f16 / _bf16: "A k: 4 * floor(lane / 32) + ...",
# "C or D i: (8 * floor(GPR_num / 4) % 32) + 4 * floor(lane / 32) + (GPR_num % 4)".
MFMA_32x32x8 = Layout(
    a=lambda l, v: (l % 32, 4 * (l // 32) + v),
    b=lambda l, v: (4 * (l // 32) + v, l % 32),
    c=C_PLACEMENTS["mfma_32x32x8"].at,
)
# [S3] gfx950 M16N16K32: kABKLane = 4, kABKPerLane = 8; C as 16x16x16. Unverified.
MFMA_16x16x32 = Layout(
    a=lambda l, v: (l % 16, 8 * (l // 16) + v),
    b=lambda l, v: (8 * (l // 16) + v, l % 16),
    c=C_PLACEMENTS["mfma_16x16x32"].at,
)
# [S5] gfx950 32x32x16: A at row lane % 32, k (lane / 32) * 8 + v; C row
# (lane / 32) * 4 + (v % 4) + (v / 4) * 8, column lane % 32 (as 32x32x8).
# Unverified against an AMD table (LAYOUTS.md).
MFMA_32x32x16 = Layout(
    a=lambda l, v: (l % 32, 8 * (l // 32) + v),
    b=lambda l, v: (8 * (l // 32) + v, l % 32),
    c=C_PLACEMENTS["mfma_32x32x16"].at,
)
# [S1] rdna3 v_wmma_f32_16x16x16_f16 (wave32): "A[i][k] Lane: i and i+16",
# "A k: 2 * GPR_num + floor(GPR_bits / 16)", "C or D i: 2 * GPR_num + floor(lane / 16)".
WMMA_GFX11 = Layout(
    a=lambda l, v: (l % 16, v),
    b=lambda l, v: (v, l % 16),
    c=C_PLACEMENTS["wmma_gfx11_16x16x16"].at,
)
# [S1] rdna4 v_wmma_f32_16x16x16_f16 (wave32): "A k: 8 * floor(GPR_num / 2) +
# 4 * floor(lane / 16) + 2 * (GPR_num % 2) + floor(GPR_bits / 16)",
# "C or D i: 8 * floor(lane / 16) + GPR_num".
WMMA_GFX12 = Layout(
    a=lambda l, v: (l % 16, 8 * (v // 4) + 4 * (l // 16) + v % 4),
    b=lambda l, v: (8 * (v // 4) + 4 * (l // 16) + v % 4, l % 16),
    c=C_PLACEMENTS["wmma_gfx12_16x16x16"].at,
)
# [S4] gfx1250 16x16x32 (WMMA v3, kWidth 8); C as gfx12. Unverified.
WMMA_GFX1250 = Layout(
    a=lambda l, v: (l % 16, 16 * (v // 8) + 8 * (l // 16) + v % 8),
    b=lambda l, v: (16 * (v // 8) + 8 * (l // 16) + v % 8, l % 16),
    c=C_PLACEMENTS["wmma_gfx1250_16x16x32"].at,
)

# Layout id -> Layout. The fp8 K=32 MFMA shares MFMA_16x16x32: [S1] cdna3
# v_mfma_f32_16x16x32_fp8_fp8 "A k: 8 * floor(lane / 16) + 4 * GPR_num + floor(GPR_bits / 8)".
BY_ID = {
    "mfma_16x16x16": MFMA_16x16x16,
    "mfma_32x32x8": MFMA_32x32x8,
    "mfma_16x16x32": MFMA_16x16x32,
    "mfma_32x32x16": MFMA_32x32x16,
    "wmma_gfx11_16x16x16": WMMA_GFX11,
    "wmma_gfx12_16x16x16": WMMA_GFX12,
    "wmma_gfx1250_16x16x32": WMMA_GFX1250,
}

# (op id, arch generation) -> Layout. A layout id without a Layout fails here, at import.
LAYOUTS = {key: BY_ID[form.layout] for key, form in FORMS.items()}

# The layouts no AMD table covers: AMD's calculator has no CDNA4 (gfx950's
# K=32 ops) and no gfx1250. layouts_test checks every other entry against
# AMD's tables (testdata/) and that this set is exactly what they lack.
NOT_IN_AMD_TABLES = frozenset(
    {
        ("mma_16x16x32_f16_f32", "gfx9"),
        ("mma_16x16x32_bf16_f32", "gfx9"),
        ("mma_32x32x16_f16_f32", "gfx9"),
        ("mma_32x32x16_bf16_f32", "gfx9"),
        ("mma_16x16x32_f16_f32", "gfx1250"),
        ("mma_16x16x32_bf16_f32", "gfx1250"),
    }
)
