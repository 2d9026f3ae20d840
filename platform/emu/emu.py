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

__all__ = [
    "ArchNotEmulated", "CodeObject", "EMULATED", "EmuError", "ExecutionError", "LaunchError", "LoadError",
    "MemoryFault", "Program", "Result", "Scalar", "Unimplemented", "launch", "program", "workgroup_order",
]


def program(data, kernel, toolchain):
    """The Program of kernel `kernel` (None: the only one) of code object bytes `data`."""
    co = data if isinstance(data, CodeObject) else CodeObject(data)
    k = co.kernel(kernel)
    check_arch(co.arch)
    prog = Program(k, toolchain.disassemble(co.data, co.arch))
    prog.kd_address = co.symbols[k.name + ".kd"].value if k.name + ".kd" in co.symbols else 0
    return prog
