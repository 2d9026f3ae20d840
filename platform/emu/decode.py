"""Instructions from the disassembler's text.

The route: the flavor's own llvm-objdump (Toolchain.disassemble), exactly the
LLVM that produced the code object, so every encoding it emits is decoded by
the tables that emitted it, on every arch it knows (gfx942, gfx950, gfx1201
and more). README.md says why this and not tinygrad's decoder.

Each instruction line of `llvm-objdump -d` is

    <TAB>MNEMONIC OPERAND, OPERAND ... MODIFIER ...   // ADDRESS: WORDS [<sym+0xOFF>]

Operands are split at ", "; the last piece's words after its first are
modifiers (`offen`, `offset:64`, `op_sel:[0,1,0]`) unless they are operands
of an s_waitcnt-like instruction, whose operand is all of its text. A VOPD
pair (`v_dual_X ... :: v_dual_Y ...`) is one Instruction with `pair` set to
the second half.
"""

import dataclasses
import re

from emu.errors import DecodeError

_FUNCTION = re.compile(r"^([0-9a-fA-F]+) <([^>]+)>:$")
_LINE = re.compile(r"^\s+(\S+)\s*(.*?)\s*//\s*([0-9a-fA-F]+):\s*((?:[0-9A-Fa-f]{8}\s*)+)(?:<[^>]*>)?\s*$")
# Words after an operand that are flags of the instruction, not operands.
_FLAGS = frozenset(
    {
        "offen",
        "idxen",
        "lds",
        "glc",
        "slc",
        "dlc",
        "nt",
        "sc0",
        "sc1",
        "clamp",
        "gds",
        "tfe",
        "lwe",
        "addr64",
        "matrix_a_reuse",
        "matrix_b_reuse",
        "bound_ctrl:0",
        "fi",
        "unorm",
        "r128",
        "a16",
        "d16",
    }
)


@dataclasses.dataclass(frozen=True)
class Instruction:
    address: int  # virtual address
    size: int  # bytes
    mnemonic: str
    operands: tuple  # operand texts, e.g. ("v[8:9]", "s[0:1]", "0x10")
    modifiers: dict  # {"offset": "64", "offen": True, "op_sel": "[0,1,0]"}
    text: str  # the instruction as objdump printed it
    words: tuple = ()  # the encoding's 32-bit words, as printed
    pair: object = None  # the second half of a VOPD pair

    @property
    def target(self):
        """A SOPP branch's target: the next instruction plus simm16 dwords."""
        imm = int(self.operands[0], 0) & 0xFFFF
        return self.address + 4 + 4 * (imm - (1 << 16) if imm >= 1 << 15 else imm)

    def modifier(self, name, default=None):
        return self.modifiers.get(name, default)


def _split(rest):
    """(operands, modifiers) of one instruction's text after its mnemonic."""
    pieces = [p.strip() for p in rest.split(", ")] if rest else []
    operands, modifiers = [], {}
    if pieces:
        *first, last = pieces
        words = last.split()
        operands = first + words[:1]
        for word in words[1:]:
            if ":" in word and not word.startswith(("sext(", "-", "|")) or word in _FLAGS:
                key, _, value = word.partition(":")
                modifiers[key] = value if value else True
            else:
                operands.append(word)
    return tuple(operands), modifiers


def _instruction(mnemonic, rest, address, words, text):
    first, _, second = rest.partition(" :: ")
    operands, modifiers = _split(first)
    pair = None
    if second:
        mnemonic2, _, rest2 = second.partition(" ")
        pair = _instruction(mnemonic2, rest2, address, words, text)
    return Instruction(address, 4 * len(words), mnemonic, operands, modifiers, text, tuple(words), pair)


def parse(text, kernel):
    """The instructions of function `kernel` in `llvm-objdump -d` text, in address order."""
    out, inside = [], False
    for number, line in enumerate(text.splitlines(), 1):
        head = _FUNCTION.match(line)
        if head:
            inside = head.group(2) == kernel
            continue
        if not inside or not line.strip() or "//" not in line or not line[0].isspace():
            continue
        match = _LINE.match(line)
        if not match:
            raise DecodeError(
                f"objdump line {number}: expected 'MNEMONIC OPERANDS // ADDRESS: WORDS', got {line.strip()!r}"
            )
        mnemonic, rest, address, words = match.groups()
        out.append(_instruction(mnemonic, rest, int(address, 16), words.split(), line.strip()))
    if not out:
        raise DecodeError(
            f"expected the function {kernel!r} in the disassembly, got none (was it disassembled with -d?)"
        )
    return out
