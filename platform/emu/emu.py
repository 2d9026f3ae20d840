"""The emulator's front door: a code object's kernel made ready to run, and launched.

    prog = program(data, "kernel", toolchain)   # toolchain: its llvm-objdump disassembles (disassemble.py)
    progs = programs([(data, "kernel"), ...], toolchain)   # many, one llvm-objdump run per arch
    result = launch(prog, grid=..., block=..., args=[...])

ArchNotEmulated comes before any disassembly; LoadError for bytes that are
not a code object or a kernel it lacks.
"""

from emu import collector, disassemble
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
    "programs",
    "workgroup_order",
]

# s_nop 0, in the SOPP encoding of gfx9 and gfx12 alike.
S_NOP_0 = 0xBF800000


def program(data, kernel, toolchain):
    """The Program of kernel `kernel` (None: the only one) of code object bytes `data`."""
    return programs([(data, kernel)], toolchain)[0]


def programs(items, toolchain):
    """program() of each (data, kernel) of `items`, in order; the code objects of one arch are
    disassembled by one llvm-objdump run."""
    with collector.paused():
        return _programs(items, toolchain)


def _programs(items, toolchain):
    objects = [data if isinstance(data, CodeObject) else CodeObject(data) for data, _ in items]
    kernels = [co.kernel(kernel) for co, (_, kernel) in zip(objects, items)]
    for co in objects:
        check_arch(co.arch)
    texts = {}
    for arch in dict.fromkeys(co.arch for co in objects):
        mine = [n for n, co in enumerate(objects) if co.arch == arch]
        texts.update(zip(mine, disassemble.all_of([objects[n].data for n in mine], arch, toolchain)))
    out = []
    for n, (co, k) in enumerate(zip(objects, kernels)):
        prog = Program(k, texts[n])
        prog.kd_address = co.symbols[k.name + ".kd"].value if k.name + ".kd" in co.symbols else 0
        out.append(prog)
    return out


def patch(data, address, words):
    """A copy of code object `data` with the instruction words at virtual `address` replaced."""
    raw = b"".join(w.to_bytes(4, "little") for w in words)
    at = codeobject.offset(data, address, len(raw))
    return data[:at] + raw + data[at + len(raw) :]
