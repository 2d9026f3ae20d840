"""The emulator's front door: a code object's kernel made ready to run, and launched.

    prog = program(data, "kernel", toolchain)   # toolchain: disassembles (Toolchain.disassemble)
    result = launch(prog, grid=..., block=..., args=[...])

ArchNotEmulated comes before any disassembly; LoadError for bytes that are
not a code object or a kernel it lacks.
"""

from emu import control, lds, mma, salu, valu, vmem  # noqa: F401  (each registers its semantics)
from emu.errors import ArchNotEmulated, EmuError, ExecutionError, LaunchError, LoadError, MemoryFault, Unimplemented
from emu.loader import CodeObject
from emu.machine import Result, Scalar, launch, workgroup_order
from emu.program import EMULATED, Program, check_arch
from toolchains.llvm import codeobject

__all__ = [
    "ArchNotEmulated",
    "CodeObject",
    "EMULATED",
    "EmuError",
    "ExecutionError",
    "LaunchError",
    "LoadError",
    "MemoryFault",
    "Program",
    "Result",
    "Scalar",
    "Unimplemented",
    "launch",
    "patch",
    "program",
    "workgroup_order",
]

# s_nop 0, in the SOPP encoding of gfx9 and gfx12 alike.
S_NOP_0 = 0xBF800000


def program(data, kernel, toolchain):
    """The Program of kernel `kernel` (None: the only one) of code object bytes `data`."""
    co = data if isinstance(data, CodeObject) else CodeObject(data)
    k = co.kernel(kernel)
    check_arch(co.arch)
    prog = Program(k, toolchain.disassemble(co.data, co.arch))
    prog.kd_address = co.symbols[k.name + ".kd"].value if k.name + ".kd" in co.symbols else 0
    return prog


def patch(data, address, words):
    """A copy of code object `data` with the instruction words at virtual `address` replaced."""
    raw = b"".join(w.to_bytes(4, "little") for w in words)
    at = codeobject.offset(data, address, len(raw))
    return data[:at] + raw + data[at + len(raw) :]
