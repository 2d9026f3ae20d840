"""One kernel of a catalog: IR kernel in, linked code object and its cost out.

The same steps as `rocke emit --out` (lower for the flavor, compile for the
kernel's arch, which parses and verifies first, link with --no-undefined), and the resource figures a
catalog row carries. Both `rocke build` and the rocke_catalog actions call
build(); nothing here knows a family.
"""

import dataclasses
import hashlib

from lower.flavors import ArchDomainError
from lower.llvm import lower
from toolchains.llvm.llvm import LlvmError, resources


class KernelError(Exception):
    """The real LLVM refused or mangled a kernel; the message is one line."""


@dataclasses.dataclass(frozen=True)
class Built:
    code_object: bytes
    figures: dict  # FIGURES -> int, or None where the flavor reports none

    @property
    def sha256(self):
        return hashlib.sha256(self.code_object).hexdigest()


# The figures a row carries, in its column order, read from the code
# object's metadata (occupancy computed from the arch table); waves is
# workgroup size over wave size.
FIGURES = ("vgpr", "agpr", "sgpr", "lds", "scratch", "vgpr_spill", "sgpr_spill", "occupancy", "waves")


def build(kernel, toolchain):
    """Lower, compile (parsing and verifying) and link IR `kernel` (its attrs name the arch)
    with Toolchain `toolchain`; KernelError says what LLVM refused."""
    arch = kernel.attrs["arch"]
    try:
        ir = lower(kernel, toolchain.flavor)
        compiled = toolchain.compile(ir, arch)
        if compiled.has_indirect_call:
            raise KernelError(f"{toolchain.flavor} compiled an intrinsic it does not know into an indirect call in {kernel.name}")
        code_object = toolchain.link(compiled.obj)
    except (ArchDomainError, LlvmError) as e:
        raise KernelError(f"{kernel.name} on {arch}: {e}") from None
    found = resources(compiled)
    size, wave = found["workgroup_size"], found["wave_size"]
    found["waves"] = -(-size // wave) if size and wave else None
    return Built(code_object, {name: found[name] for name in FIGURES})
