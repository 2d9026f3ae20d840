"""Reads `llvm-objdump -d` text of an AMDGPU code object into instructions.

Each function starts with a line `ADDRESS <name>:`; each instruction line is

    <TAB>MNEMONIC OPERANDS   // ADDRESS: ENCODING [<name+0xOFFSET>]

where the trailing `<name+0xOFFSET>` is objdump's own reading of a branch
target. A branch without it is resolved from its immediate: SOPP branches jump
to the next instruction plus simm16 dwords (every AMDGPU ISA manual, "SOPP").
Addresses are kept as byte offsets from the function's start.
"""

import dataclasses
import re


class ObjdumpError(ValueError):
    """Text that is not llvm-objdump's disassembly of an AMDGPU code object."""


@dataclasses.dataclass(frozen=True)
class Instruction:
    offset: int  # bytes from the function's start
    mnemonic: str
    operands: str
    target: object = None  # a branch's target offset, else None

    @property
    def is_branch(self):
        return self.mnemonic == "s_branch" or self.mnemonic.startswith("s_cbranch_")


_FUNCTION = re.compile(r"^([0-9a-fA-F]+) <([^>]+)>:$")
_INSTRUCTION = re.compile(
    r"^\s+(\S+)\s*(.*?)\s*//\s*([0-9a-fA-F]+):\s*[0-9A-Fa-f ]+?(?:\s*<([^>+]+)(?:\+0x([0-9a-fA-F]+))?>)?\s*$"
)
_SOPP_BRANCH_BYTES = 4


def _simm16_target(offset, operands, where):
    try:
        imm = int(operands.split()[0], 0)
    except ValueError, IndexError:
        raise ObjdumpError(f"{where}: expected a branch with an immediate or a <target>, got {operands!r}") from None
    if imm >= 1 << 15:
        imm -= 1 << 16
    return offset + _SOPP_BRANCH_BYTES + 4 * imm


def parse(text):
    """{function name: tuple of Instruction}, in the order of the text."""
    functions = {}
    name = start = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        head = _FUNCTION.match(line)
        if head:
            name, start = head.group(2), int(head.group(1), 16)
            functions[name] = []
            continue
        if name is None or not line[0].isspace() or "//" not in line:
            continue  # file header, section titles, directives
        match = _INSTRUCTION.match(line)
        if not match:
            raise ObjdumpError(
                f"objdump line {number}: expected 'MNEMONIC OPERANDS // ADDRESS: ENCODING', got {line.strip()!r}"
            )
        mnemonic, operands, address, sym, sym_off = match.groups()
        offset = int(address, 16) - start
        inst = Instruction(offset, mnemonic, operands)
        if inst.is_branch:
            if sym == name:
                target = int(sym_off or "0", 16)
            else:
                target = _simm16_target(offset, operands, f"objdump line {number}")
            inst = dataclasses.replace(inst, target=target)
        functions[name].append(inst)
    if not functions:
        raise ObjdumpError(
            "objdump: expected at least one function ('ADDRESS <name>:'), got none; was the code object disassembled with -d?"
        )
    return {n: tuple(insts) for n, insts in functions.items()}
