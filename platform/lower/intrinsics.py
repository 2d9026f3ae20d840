"""Intrinsic spellings the lowering emits, as tables built from the data files
(platform/arch/mma_forms.json and flavor_facts.json).

Every name here is probed against each flavor's real LLVM at build time
(platform/arch:availability_llvmNN), and availability_test checks that the
lowering emits nothing its flavor's table lacks.
"""

from arch.flavor_facts import BUFFER_ACCESS, GENERATIONS, IDS, INTRINSICS, PATH
from arch.mma_forms import FORMS

# (op id, arch generation) -> arch.mma_forms.Llvm: the intrinsic, its LLVM types,
# operand form and cast, with per-flavor overrides (Llvm.for_flavor). Notes Q4
# measured each name and signature.
MMA = {key: form.llvm for key, form in FORMS.items()}

# Buffer loads and stores move integers of the access size, bitcast to the IR type.
BUFFER_TYPES = {size: a.type for size, a in BUFFER_ACCESS.items()}
BUFFER_SUFFIX = {a.type: a.suffix for a in BUFFER_ACCESS.values()}

# Word 3 of a buffer resource (format and out-of-bounds behaviour) by generation.
# Not checked on hardware here (no GPU): compile-proven only (FLAVOR_FACTS.md).
BUFFER_FLAGS = {generation: f.buffer_flags for generation, f in GENERATIONS.items()}

# Generations whose barrier is split into signal and wait (notes Q5: emitting the
# split form for gfx9/gfx11 crashes LLVM 20-23).
SPLIT_BARRIER_GENERATIONS = tuple(generation for generation, f in GENERATIONS.items() if f.barrier == "split")

WORKITEM_ID = IDS["workitem"]
WORKGROUP_ID = IDS["workgroup"]


def spell(key, suffix=None):
    """The called name of intrinsic `key` (flavor_facts.json "intrinsics"):
    its name, plus ".SUFFIX" (the overload's type, e.g. f32, v2i32) exactly
    when it is overloaded."""
    entry = INTRINSICS.get(key)
    if entry is None:
        raise LookupError(
            f"{PATH}: intrinsics: expected an entry {key!r}, got none; add it (schema in platform/arch/FLAVOR_FACTS.md)"
        )
    if entry.overloaded != (suffix is not None):
        form = "an overload suffix" if entry.overloaded else "no overload suffix"
        raise ValueError(f"intrinsic {key!r} ({entry.name}): expected {form}, got {suffix!r}")
    return f"{entry.name}.{suffix}" if entry.overloaded else entry.name
