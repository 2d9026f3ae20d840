"""The flavor table: every fact that differs between the LLVM versions.

The rows are platform/arch/flavor_facts.json (arch.flavor_facts), each backed
by a measurement (shared/notes/llvm-flavors.md) and asserted against the real
LLVM of that flavor by flavors_test (compile every row's spelling) and
toolchains/llvm:conformance_test (versions, triples, datalayouts, CPUs).
"""

from arch.flavor_facts import FLAVORS
from errors.errors import FieldError


class ArchDomainError(FieldError):
    """A kernel asks for something its arch or flavor cannot express."""


def get(name):
    if name not in FLAVORS:
        raise ArchDomainError(
            f"flavor: expected one of {', '.join(FLAVORS)}, got {name!r}", "flavor", name, list(FLAVORS)
        )
    return FLAVORS[name]


def supporting(arch):
    """The flavors that know `arch`."""
    return [f.name for f in FLAVORS.values() if arch in f.cpus]


def check_arch(flavor, arch, what):
    if arch not in flavor.cpus:
        raise ArchDomainError(
            f"{what}: {arch} is not known to {flavor.name}; flavors that support it: "
            f"{', '.join(supporting(arch)) or 'none'}. Lower for one of those, or pick another arch.",
            "flavor",
            flavor.name,
            supporting(arch),
        )
