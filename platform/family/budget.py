"""Whether a compiled kernel fits its arch: no spills, registers within budget.

The validity gate (validity_test.py) fails a case whose code object spills
VGPRs or SGPRs to scratch, or declares more VGPRs or AGPRs per lane than
its arch has (archs.json: `vgprs`, `agprs`; SOURCES.md gives the sources).
A spill is a performance cliff the kernel's author must see, not a detail
LLVM may hide; a register count past the budget cannot run at all.
"""

from arch import arch as archs

# The resource figures (toolchains/llvm/llvm.py's resources) that must be 0.
_SPILLS = ("vgpr_spill", "sgpr_spill")


def overruns(figures, arch):
    """What in `figures` (a resources() dict) breaks `arch`'s budget, one
    sentence each; empty when it fits. A spill count the metadata does not
    report is an overrun too: the gate cannot prove there is none."""
    a = archs.get(arch)
    found = []
    for name in _SPILLS:
        value = figures.get(name)
        if value is None:
            found.append(f"{name}: not reported by the code object's metadata, so no spill can be ruled out")
        elif value:
            found.append(f"{name}: expected 0 (no spills), got {value}")
    for name, limit in (("vgpr", a.vgprs), ("agpr", a.agprs)):
        value = figures.get(name) or 0
        if value > limit:
            found.append(f"{name}: expected at most {limit} per lane on {arch} (archs.json), got {value}")
    return found
