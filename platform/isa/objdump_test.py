"""The objdump reader on small hand-written disassembly."""

import pytest

from isa import objdump

# Two functions; addresses absolute as objdump prints them.
TEXT = """
k.hsaco:\tfile format elf64-amdgpu

Disassembly of section .text:

0000000000001700 <first>:
\ts_load_dwordx2 s[0:1], s[4:5], 0x0                         // 000000001700: C0060002 00000000
\ts_cbranch_scc1 2                                           // 000000001708: BF850002 <first+0x14>
\tv_mov_b32_e32 v0, 0                                        // 00000000170C: 7E000280
\ts_branch 65533                                             // 000000001710: BF82FFFD <first+0x8>
\ts_endpgm                                                   // 000000001714: BF810000

0000000000001800 <second>:
\ts_branch 1                                                 // 000000001800: BF820001
\ts_nop 0                                                    // 000000001804: BF800000
\ts_endpgm                                                   // 000000001808: BF810000
"""


def test_functions_instructions_and_offsets():
    fns = objdump.parse(TEXT)
    assert list(fns) == ["first", "second"]
    first = fns["first"]
    assert [i.offset for i in first] == [0x0, 0x8, 0xC, 0x10, 0x14]
    assert first[0].mnemonic == "s_load_dwordx2" and first[0].operands == "s[0:1], s[4:5], 0x0"
    assert first[4].operands == ""


def test_branch_targets_from_objdump_and_from_the_immediate():
    fns = objdump.parse(TEXT)
    # objdump's <first+0x14>, and <first+0x8> for the backward s_branch.
    assert [i.target for i in fns["first"] if i.is_branch] == [0x14, 0x8]
    # No <target>: next instruction (0x4) plus 1 dword.
    assert fns["second"][0].target == 0x8
    assert fns["second"][1].target is None


def test_backward_immediate_is_signed():
    text = "0000000000000000 <f>:\n\ts_nop 0 // 000000000000: BF800000\n\ts_branch 65534 // 000000000004: BF82FFFE\n"
    assert objdump.parse(text)["f"][1].target == 0x0  # 0x4 + 4 - 8


def test_no_function_is_an_error():
    with pytest.raises(objdump.ObjdumpError, match="expected at least one function"):
        objdump.parse("k.hsaco:\tfile format elf64-amdgpu\n")


def test_a_garbled_instruction_line_names_its_number():
    with pytest.raises(
        objdump.ObjdumpError, match=r"objdump line 2: expected 'MNEMONIC OPERANDS // ADDRESS: ENCODING', got"
    ):
        objdump.parse("0000000000000000 <f>:\n\ts_nop 0 // not an address\n")
