"""The emulator's errors: one named class per thing that can go wrong, each
message one line saying what was received and what was expected."""


class EmuError(Exception):
    """Base of every error the emulator raises."""


class LoadError(EmuError):
    """The bytes are not an AMDGPU code object the emulator can read, or the
    kernel asked for is not in it."""


class ArchNotEmulated(EmuError):
    """The code object is for an arch the emulator does not execute."""


class DecodeError(EmuError):
    """The disassembler's text is not what decode.py reads."""


class Unimplemented(EmuError):
    """An executed instruction has no semantics in the tables."""

    def __init__(self, mnemonic, address, kernel, detail=""):
        self.mnemonic, self.address, self.kernel = mnemonic, address, kernel
        more = f" ({detail})" if detail else ""
        super().__init__(f"unimplemented instruction {mnemonic} at 0x{address:x} in {kernel}{more}")


class MemoryFault(EmuError):
    """A lane touched memory outside every buffer (or outside LDS or its private segment)."""


class LaunchError(EmuError):
    """The launch does not fit the kernel: arguments, grid, block, LDS."""


class ExecutionError(EmuError):
    """The program did something the machine cannot: a barrier no wave can
    pass, a branch outside the kernel, a step budget exhausted."""
