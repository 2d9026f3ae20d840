"""A code object as the HIP runtime reads it: its kernels, each with its
kernel descriptor and its entry in the AMDGPU metadata note.

    co = CodeObject(data)          # LoadError unless an AMDGPU code object
    co.arch                        # "gfx942"
    k = co.kernel("name")          # Kernel; LoadError naming the kernels there are

The descriptor's fields are those of LLVM's AMDGPUUsage, "Kernel Descriptor"
(64 bytes at the kernel's `.kd` symbol); the metadata's those of "Code
Object V3 and Above Metadata". The ELF and MessagePack reading is
toolchains/llvm/codeobject.py's.
"""

import dataclasses
import struct

from emu.errors import LoadError
from toolchains.llvm import codeobject
from toolchains.llvm.errors import LlvmError

_DESCRIPTOR_BYTES = 64

# kernel_code_properties bit -> the user SGPRs it enables, in the order the
# hardware loads them (AMDGPUUsage, "Initial Kernel Execution State").
USER_SGPRS = (
    (0, "private_segment_buffer", 4),
    (1, "dispatch_ptr", 2),
    (2, "queue_ptr", 2),
    (3, "kernarg_segment_ptr", 2),
    (4, "dispatch_id", 2),
    (5, "flat_scratch_init", 2),
    (6, "private_segment_size", 1),
)
_WAVE32_BIT = 10
_DYNAMIC_STACK_BIT = 11


@dataclasses.dataclass(frozen=True)
class Arg:
    name: str
    offset: int
    size: int
    kind: str  # the metadata's .value_kind: global_buffer, by_value, hidden_block_count_x, ...
    address_space: str = ""

    @property
    def hidden(self):
        return self.kind.startswith("hidden_")


@dataclasses.dataclass(frozen=True)
class Kernel:
    name: str
    arch: str
    entry: int  # virtual address of the first instruction
    group_segment_size: int  # static LDS bytes
    private_segment_size: int  # scratch bytes per lane
    kernarg_size: int
    wave_size: int
    user_sgprs: tuple  # (name, count) in load order
    user_sgpr_count: int  # what the descriptor's COMPUTE_PGM_RSRC2 says the SGPRs above fill
    kernarg_preload: int  # kernarg dwords preloaded into SGPRs after the user SGPRs
    kernarg_preload_offset: int  # from this dword of the kernarg segment
    workgroup_ids: tuple  # enabled of "x", "y", "z"
    workgroup_info: bool
    private_segment: bool  # the private segment wave offset SGPR (and scratch) enabled
    workitem_dims: int  # 1, 2 or 3 workitem ids in VGPRs
    rsrc1: int
    rsrc2: int
    rsrc3: int
    args: tuple  # Arg of every argument the metadata lists, hidden ones included
    sgpr_count: int
    vgpr_count: int
    agpr_count: int
    uses_dynamic_stack: bool

    @property
    def explicit_args(self):
        return tuple(a for a in self.args if not a.hidden)


def _bits(value, lo, width):
    return (value >> lo) & ((1 << width) - 1)


def _arch_of(target):
    """'amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-' -> 'gfx942'."""
    return target.split("-")[-1].split(":")[0]


class CodeObject:
    def __init__(self, data):
        self.data = bytes(data)
        try:
            meta = codeobject.metadata(self.data)
            self.symbols = codeobject.symbols(self.data)
        except (LlvmError, IndexError, struct.error) as e:
            raise LoadError(
                f"expected an AMDGPU code object (ELF64 with an AMDGPU metadata note), got {len(self.data)} bytes: {e}"
            ) from None
        target = meta.get("amdhsa.target")
        if not isinstance(target, str):
            raise LoadError(f"expected the metadata's amdhsa.target to name the arch, got {target!r}")
        self.target = target
        self.arch = _arch_of(target)
        self.kernels = {}
        for entry in meta.get("amdhsa.kernels", []):
            kernel = self._kernel(entry)
            self.kernels[kernel.name] = kernel
        if not self.kernels:
            raise LoadError("expected at least one kernel in the metadata's amdhsa.kernels, got none")

    def kernel(self, name=None):
        """The kernel `name`; with no name, the only kernel there is."""
        if name is None:
            if len(self.kernels) != 1:
                raise LoadError(
                    f"expected a kernel name: the code object has {len(self.kernels)} "
                    f"({', '.join(sorted(self.kernels))})"
                )
            (name,) = self.kernels
        if name not in self.kernels:
            raise LoadError(f"unknown kernel {name!r}: the code object has {', '.join(sorted(self.kernels))}")
        return self.kernels[name]

    def _kernel(self, entry):
        name, symbol = entry.get(".name"), entry.get(".symbol")
        if symbol not in self.symbols:
            raise LoadError(f"kernel {name}: expected its descriptor symbol {symbol!r} in the symbol table, got none")
        kd_address = self.symbols[symbol].value
        try:
            kd = codeobject.read(self.data, kd_address, _DESCRIPTOR_BYTES)
        except LlvmError as e:
            raise LoadError(f"kernel {name}: its descriptor: {e}") from None
        group, private, kernarg_size, _, entry_offset = struct.unpack_from("<IIIIq", kd, 0)
        rsrc3, rsrc1, rsrc2, properties, preload = struct.unpack_from("<IIIHH", kd, 44)
        wave = 32 if properties >> _WAVE32_BIT & 1 else 64
        if entry.get(".wavefront_size", wave) != wave:
            raise LoadError(f"kernel {name}: the metadata says wave {entry['.wavefront_size']}, the descriptor {wave}")
        args = tuple(
            Arg(a.get(".name", f"arg{i}"), a[".offset"], a[".size"], a[".value_kind"], a.get(".address_space", ""))
            for i, a in enumerate(entry.get(".args", []))
        )
        return Kernel(
            name=name,
            arch=self.arch,
            entry=kd_address + entry_offset,
            group_segment_size=group,
            private_segment_size=private,
            kernarg_size=kernarg_size,
            wave_size=wave,
            user_sgprs=tuple((n, count) for bit, n, count in USER_SGPRS if properties >> bit & 1),
            user_sgpr_count=_bits(rsrc2, 1, 5),
            kernarg_preload=_bits(preload, 0, 7),
            kernarg_preload_offset=_bits(preload, 7, 9),
            workgroup_ids=tuple(axis for i, axis in enumerate("xyz") if rsrc2 >> (7 + i) & 1),
            workgroup_info=bool(rsrc2 >> 10 & 1),
            private_segment=bool(rsrc2 & 1),
            workitem_dims=_bits(rsrc2, 11, 2) + 1,
            rsrc1=rsrc1,
            rsrc2=rsrc2,
            rsrc3=rsrc3,
            args=args,
            sgpr_count=entry.get(".sgpr_count", 0),
            vgpr_count=entry.get(".vgpr_count", 0),
            agpr_count=entry.get(".agpr_count", 0),
            uses_dynamic_stack=bool(properties >> _DYNAMIC_STACK_BIT & 1) or bool(entry.get(".uses_dynamic_stack")),
        )
