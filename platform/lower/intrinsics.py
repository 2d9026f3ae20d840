"""Intrinsic spellings the lowering emits, as tables.

Every name here is probed against each flavor's real LLVM at build time
(platform/arch:availability_llvmNN), and availability_test checks that the
lowering emits nothing its flavor's table lacks.
"""

from arch.mma_forms import FORMS

# (op id, arch family) -> arch.mma_forms.Llvm: the intrinsic, its LLVM types,
# operand form and cast, with per-flavor overrides (Llvm.for_flavor). Notes Q4
# measured each name and signature; the data is platform/arch/mma_forms.json.
MMA = {key: form.llvm for key, form in FORMS.items()}

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
