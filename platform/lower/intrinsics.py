"""Intrinsic spellings the lowering emits, as tables.

Every name here is probed against each flavor's real LLVM at build time
(platform/arch:availability_llvmNN), and availability_test checks that the
lowering emits nothing its flavor's table lacks.
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class MmaForm:
    name: str
    ab: str  # LLVM type of the A and B operands
    c: str  # LLVM type of C and D
    # "mfma": (a, b, c, i32 0, i32 0, i32 0); "wmma": (a, b, c); "wmma_mods":
    # gfx1250's WMMA with modifier operands, whose list depends on the LLVM
    # version: the flavor's wmma_mods_form, "wmma8" (i1 false, a, i1 false, b,
    # i16 0, c, i1 false, i1 false) or "wmma6" (a, b, i16 0, c, i1 false, i1 false).
    form: str
    # How an A/B fragment becomes `ab`: "" (as is), "bitcast" (bf16 as i16 bits,
    # fp8 as packed integers).
    cast: str = ""


# (op id, arch family) -> form. Notes Q4 measured each name and signature.
MMA = {
    ("mma_16x16x16_f16_f32", "gfx9"): MmaForm("llvm.amdgcn.mfma.f32.16x16x16f16", "<4 x half>", "<4 x float>", "mfma"),
    ("mma_32x32x8_f16_f32", "gfx9"): MmaForm("llvm.amdgcn.mfma.f32.32x32x8f16", "<4 x half>", "<16 x float>", "mfma"),
    ("mma_16x16x16_bf16_f32", "gfx9"): MmaForm("llvm.amdgcn.mfma.f32.16x16x16bf16.1k", "<4 x i16>", "<4 x float>", "mfma", "bitcast"),
    ("mma_32x32x8_bf16_f32", "gfx9"): MmaForm("llvm.amdgcn.mfma.f32.32x32x8bf16.1k", "<4 x i16>", "<16 x float>", "mfma", "bitcast"),
    ("mma_16x16x32_f16_f32", "gfx9"): MmaForm("llvm.amdgcn.mfma.f32.16x16x32.f16", "<8 x half>", "<4 x float>", "mfma"),
    ("mma_16x16x32_bf16_f32", "gfx9"): MmaForm("llvm.amdgcn.mfma.f32.16x16x32.bf16", "<8 x bfloat>", "<4 x float>", "mfma"),
    ("mma_16x16x32_fp8_f32", "gfx9"): MmaForm("llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8", "i64", "<4 x float>", "mfma", "bitcast"),
    ("mma_16x16x16_f16_f32", "gfx11"): MmaForm("llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16", "<16 x half>", "<8 x float>", "wmma"),
    ("mma_16x16x16_bf16_f32", "gfx11"): MmaForm("llvm.amdgcn.wmma.f32.16x16x16.bf16.v8f32.v16i16", "<16 x i16>", "<8 x float>", "wmma", "bitcast"),
    ("mma_16x16x16_f16_f32", "gfx12"): MmaForm("llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16", "<8 x half>", "<8 x float>", "wmma"),
    ("mma_16x16x16_bf16_f32", "gfx12"): MmaForm("llvm.amdgcn.wmma.f32.16x16x16.bf16.v8f32.v8i16", "<8 x i16>", "<8 x float>", "wmma", "bitcast"),
    ("mma_16x16x32_f16_f32", "gfx1250"): MmaForm("llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16", "<16 x half>", "<8 x float>", "wmma_mods"),
    ("mma_16x16x32_bf16_f32", "gfx1250"): MmaForm("llvm.amdgcn.wmma.f32.16x16x32.bf16.v8f32.v16bf16", "<16 x bfloat>", "<8 x float>", "wmma_mods"),
}

# Buffer loads and stores move integers of the access size, bitcast to the IR type.
BUFFER_TYPES = {1: "i8", 2: "i16", 4: "i32", 8: "<2 x i32>", 16: "<4 x i32>"}
BUFFER_SUFFIX = {"i8": "i8", "i16": "i16", "i32": "i32", "<2 x i32>": "v2i32", "<4 x i32>": "v4i32"}

# Word 3 of a buffer resource (format and out-of-bounds behaviour) by family.
# gfx9 value as composable_kernel's CK_BUFFER_RESOURCE_3RD_DWORD; gfx11/gfx12
# values likewise. Not checked on hardware here (no GPU): compile-proven only.
BUFFER_FLAGS = {"gfx9": 0x00020000, "gfx11": 0x31004000, "gfx12": 0x31004000, "gfx1250": 0x31004000}

# Families whose barrier is split into signal and wait (notes Q5: emitting the
# split form for gfx9/gfx11 crashes LLVM 20-23).
SPLIT_BARRIER_FAMILIES = ("gfx12", "gfx1250")

WORKITEM_ID = ("llvm.amdgcn.workitem.id.x", "llvm.amdgcn.workitem.id.y", "llvm.amdgcn.workitem.id.z")
WORKGROUP_ID = ("llvm.amdgcn.workgroup.id.x", "llvm.amdgcn.workgroup.id.y", "llvm.amdgcn.workgroup.id.z")
