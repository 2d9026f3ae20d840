"""The flavor table: every fact that differs between the LLVM versions.

Each row is backed by a measurement (shared/notes/llvm-flavors.md) and
asserted against the real LLVM of that flavor by flavors_test (compile every
row's spelling) and toolchains/llvm:conformance_test (triples, datalayouts,
CPUs, which this table reads from toolchains/llvm/flavor_facts.py rather than
writing them again).
"""

import dataclasses

from toolchains.llvm import flavor_facts


class ArchDomainError(ValueError):
    """A kernel asks for something its arch or flavor cannot express."""


@dataclasses.dataclass(frozen=True)
class Flavor:
    name: str
    datalayout: str
    # llvm24 warns on the plain amdgcn triple and wants amdgpuX.YY-amd-amdhsa.
    subarch_triple: bool
    # Code object version, stated as a module flag so every flavor agrees
    # with the default of 22-24 (LLVM 20 would otherwise emit 5).
    code_object_version: int
    # make.buffer.rsrc: the name, and the type of its record-count operand
    # (i32 on LLVM 20; i64 from 22 on, where 24 spells the name with .i64).
    rsrc_intrinsic: str
    rsrc_count_type: str
    cpus: tuple

    def triple(self, arch):
        if not self.subarch_triple:
            return "amdgcn-amd-amdhsa"
        digits = arch.removeprefix("gfx")
        return f"amdgpu{digits[:-2]}.{digits[-2:]}-amd-amdhsa"


def _flavor(name, subarch_triple, rsrc_intrinsic, rsrc_count_type):
    return Flavor(
        name,
        flavor_facts.DATALAYOUT[name],
        subarch_triple,
        600,
        rsrc_intrinsic,
        rsrc_count_type,
        flavor_facts.CPUS[name],
    )


FLAVORS = {
    "llvm20": _flavor("llvm20", False, "llvm.amdgcn.make.buffer.rsrc.p1", "i32"),
    "llvm22": _flavor("llvm22", False, "llvm.amdgcn.make.buffer.rsrc.p8.p1", "i64"),
    "llvm23": _flavor("llvm23", False, "llvm.amdgcn.make.buffer.rsrc.p8.p1", "i64"),
    "llvm24": _flavor("llvm24", True, "llvm.amdgcn.make.buffer.rsrc.p8.p1.i64", "i64"),
}


def get(name):
    if name not in FLAVORS:
        raise ArchDomainError(f"flavor: expected one of {', '.join(FLAVORS)}, got {name!r}")
    return FLAVORS[name]


def supporting(arch):
    """The flavors that know `arch`."""
    return [f.name for f in FLAVORS.values() if arch in f.cpus]


def check_arch(flavor, arch, what):
    if arch not in flavor.cpus:
        raise ArchDomainError(
            f"{what}: {arch} is not known to {flavor.name}; flavors that support it: "
            f"{', '.join(supporting(arch)) or 'none'}. Lower for one of those, or pick another arch."
        )
