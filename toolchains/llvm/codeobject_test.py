"""The MessagePack reader and the ELF reader of codeobject.py, on bytes
written by hand from the MessagePack and ELF specifications."""

import struct

import pytest

from toolchains.llvm import codeobject
from toolchains.llvm.errors import LlvmError

MSGPACK = [
    (b"\x05", 5),  # positive fixint
    (b"\xff", -1),  # negative fixint
    (b"\xcc\xc8", 200),
    (b"\xcd\x01\x00", 256),
    (b"\xce\x00\x01\x00\x00", 65536),
    (b"\xd0\x80", -128),
    (b"\xc0", None),
    (b"\xc2", False),
    (b"\xc3", True),
    (b"\xa3abc", "abc"),
    (b"\xd9\x03xyz", "xyz"),
    (b"\x92\x01\xa1a", [1, "a"]),
    (b"\x82\xa1a\x01\xa1b\x90", {"a": 1, "b": []}),
    (b"\xde\x00\x01\xa1k\xc3", {"k": True}),
]


@pytest.mark.parametrize("data, value", MSGPACK)
def test_msgpack_values(data, value):
    assert codeobject.unpack(data, 0) == (value, len(data))


def test_msgpack_type_the_note_never_uses_is_named():
    with pytest.raises(LlvmError, match="type 0xc7 at byte 0"):
        codeobject.unpack(b"\xc7\x01\x00\x00", 0)


def _elf(sections, abi_version=4):
    """An ELF64 object: a null section then `sections`, each (type, bytes, link)."""
    header_size, entry = 64, 64
    body, headers, at = b"", [b"\0" * entry], header_size
    for kind, data, link in sections:
        headers.append(struct.pack("<IIQQQQIIQQ", 0, kind, 0, 0, at, len(data), link, 0, 0, 0))
        body += data
        at += len(data)
    ident = b"\x7fELF\x02\x01\x01\x40" + bytes([abi_version]) + b"\0" * 7
    header = ident + struct.pack("<HHIQQQIHHHHHH", 1, 224, 1, 0, 0, at, 0, 64, 0, 0, entry, len(headers), 0)
    return header + body + b"".join(headers)


def _note(name, kind, desc):
    def pad(b):
        return b + b"\0" * (-len(b) % 4)

    return struct.pack("<III", len(name) + 1, len(desc), kind) + pad(name + b"\0") + pad(desc)


def test_metadata_is_read_from_the_amdgpu_note():
    desc = b"\x81\xadamdhsa.target\xa6gfx942"
    obj = _elf([(7, _note(b"Other", 32, b"\xc0") + _note(b"AMDGPU", 32, desc), 0)])
    assert codeobject.metadata(obj) == {"amdhsa.target": "gfx942"}
    assert codeobject.code_object_version(obj) == 6


def test_no_note_is_an_error():
    with pytest.raises(LlvmError, match="no AMDGPU metadata note"):
        codeobject.metadata(_elf([]))


def test_not_elf_is_an_error():
    with pytest.raises(LlvmError, match="expected an ELF64 little-endian object"):
        codeobject.metadata(b"not an object")


def test_undefined_symbols_are_the_global_undefined_ones():
    strtab = b"\0k\0llvm.bogus\0local\0"
    symbols = struct.pack("<IBBHQQ", 0, 0, 0, 0, 0, 0)  # the null symbol
    symbols += struct.pack("<IBBHQQ", 1, 0x12, 0, 2, 0, 0)  # k: global function, defined
    symbols += struct.pack("<IBBHQQ", 3, 0x10, 0, 0, 0, 0)  # llvm.bogus: global, undefined
    symbols += struct.pack("<IBBHQQ", 14, 0x00, 0, 0, 0, 0)  # local, undefined: not a use
    obj = _elf([(3, strtab, 0), (2, symbols, 1)])
    assert codeobject.undefined_symbols(obj) == ["llvm.bogus"]


def _loaded_elf(addr, data, symbols, strtab):
    """An ELF64 object with a PROGBITS section of `data` loaded at `addr`, a
    string table (section 2) and a symbol table (section 3)."""
    body = data + strtab + symbols
    at = 64
    headers = [b"\0" * 64]
    for kind, size, a, link in ((1, len(data), addr, 0), (3, len(strtab), 0, 0), (2, len(symbols), 0, 2)):
        headers.append(struct.pack("<IIQQQQIIQQ", 0, kind, 0, a, at, size, link, 0, 0, 24 if kind == 2 else 0))
        at += size
    ident = b"\x7fELF\x02\x01\x01\x40\x04" + b"\0" * 7
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 224, 1, 0, 0, at, 0, 64, 0, 0, 64, len(headers), 0)
    return header + body + b"".join(headers)


def test_symbols_and_reads_at_virtual_addresses():
    strtab = b"\0k\0k.kd\0"
    symbols = struct.pack("<IBBHQQ", 0, 0, 0, 0, 0, 0)
    symbols += struct.pack("<IBBHQQ", 1, 0x12, 0, 1, 0x1008, 4)  # k: a function in section 1
    symbols += struct.pack("<IBBHQQ", 3, 0x11, 0, 1, 0x1000, 8)  # k.kd: an object in section 1
    symbols += struct.pack("<IBBHQQ", 6, 0x10, 0, 0, 0, 0)  # undefined: not listed
    obj = _loaded_elf(0x1000, bytes(range(16)), symbols, strtab)
    assert codeobject.symbols(obj) == {"k": (0x1008, 4, 1), "k.kd": (0x1000, 8, 1)}
    assert codeobject.read(obj, 0x1008, 4) == bytes([8, 9, 10, 11])
    assert codeobject.offset(obj, 0x1008, 4) == 64 + 8
    with pytest.raises(LlvmError, match=r"^expected 4 bytes at address 0x100e inside one loaded section"):
        codeobject.read(obj, 0x100E, 4)  # runs past the section's end
