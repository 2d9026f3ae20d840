"""One kernel of a catalog: LLVM IR in, linked code object and its cost out.

The same steps as `rocke emit --out` after lowering (compile for the
kernel's arch, which parses and verifies first, link with --no-undefined),
and the resource figures a catalog row carries. Both `rocke build` and the
rocke_catalog actions call build() on IR that either engine lowered (the
Python one, or the C++ one, which makes the same bytes); nothing here knows
a family.
"""

import dataclasses
import hashlib

from toolchains.llvm.llvm import LlvmError


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


def identity(name, ll):
    """What makes two kernels the same kernel: the sha256 of their LLVM IR with
    the kernel's name taken out. Two problems whose family, spec (but for the
    values the kernel takes at run time) and arch agree lower to one IR but
    for that name (a gemm's m, n and k, say), and one code object serves both."""
    return hashlib.sha256(ll.replace(name, "\0").encode()).hexdigest()


def build(ll, arch, name, toolchain):
    """LLVM IR `ll` of the kernel `name` built for `arch` by Toolchain
    `toolchain` (Toolchain.build); KernelError says what LLVM refused."""
    try:
        built = toolchain.build(ll, arch, name)
    except LlvmError as e:
        raise KernelError(f"{name} on {arch}: {e}") from None
    return Built(built.code_object, {figure: built.figures[figure] for figure in FIGURES})
