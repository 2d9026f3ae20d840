"""What an AMDGPU object or code object says about its kernels, read from its
bytes: the AMDGPU metadata note (NT_AMDGPU_METADATA, a MessagePack map; the
AMDGPU backend's documentation, "Code Object V3 and Above Metadata") and the
symbol table.

    metadata(obj)           -> the note's map ({"amdhsa.kernels": [...], ...})
    undefined_symbols(obj)  -> names the object uses but does not define
    code_object_version(obj) -> 4, 5 or 6
    symbols(obj)            -> {name: Symbol(value, size, section)} of the defined symbols
    read(obj, address, size) -> the bytes at a virtual address of a loaded section
    offset(obj, address, size) -> where in the file those bytes are

Only what these need is read: ELF64 little-endian section headers, notes,
symbols, and the MessagePack types the note uses.
"""

import collections
import struct

from toolchains.llvm.errors import LlvmError

_SHT_SYMTAB, _SHT_NOTE = 2, 7
_NT_AMDGPU_METADATA = 32
_SHN_UNDEF = 0
_SHT_NOBITS = 8

Section = collections.namedtuple("Section", "kind addr offset size link")
Symbol = collections.namedtuple("Symbol", "value size section")


def _sections(obj):
    """[Section] of every section header."""
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        raise LlvmError(f"expected an ELF64 little-endian object, got {len(obj)} bytes starting {obj[:8]!r}")
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    out = []
    for i in range(shnum):
        _, kind, _, addr, offset, size, link, _, _, _ = struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize)
        out.append(Section(kind, addr, offset, size, link))
    return out


def _notes(obj):
    for kind, _, offset, size, _ in _sections(obj):
        if kind != _SHT_NOTE:
            continue
        at, end = offset, offset + size
        while at + 12 <= end:
            namesz, descsz, note_type = struct.unpack_from("<III", obj, at)
            name = obj[at + 12 : at + 12 + namesz].rstrip(b"\0")
            desc_at = at + 12 + (namesz + 3) // 4 * 4
            yield name, note_type, obj[desc_at : desc_at + descsz]
            at = desc_at + (descsz + 3) // 4 * 4


# EI_ABIVERSION of an ELFOSABI_AMDGPU_HSA object -> its code object version.
_ABI_VERSIONS = {2: 4, 3: 5, 4: 6}


def code_object_version(obj):
    _sections(obj)  # it is an ELF64 object
    if obj[8] not in _ABI_VERSIONS:
        raise LlvmError(f"expected an AMDGPU HSA ABI version in {sorted(_ABI_VERSIONS)}, got {obj[8]}")
    return _ABI_VERSIONS[obj[8]]


def metadata(obj):
    """The AMDGPU metadata map of `obj`; LlvmError if it has none."""
    for name, note_type, desc in _notes(obj):
        if name == b"AMDGPU" and note_type == _NT_AMDGPU_METADATA:
            value, end = unpack(desc, 0)
            if end != len(desc):
                raise LlvmError(f"AMDGPU metadata note: {len(desc) - end} bytes after its map")
            return value
    raise LlvmError("the object has no AMDGPU metadata note (NT_AMDGPU_METADATA)")


def undefined_symbols(obj):
    """Sorted names of the global symbols `obj` uses but does not define."""
    return sorted(
        name for name, info, shndx, _, _ in _symbol_entries(obj) if shndx == _SHN_UNDEF and info >> 4 != 0
    )  # not STB_LOCAL


def _symbol_entries(obj):
    """(name, info, section index, value, size) of every symbol-table entry but the null one."""
    sections = _sections(obj)
    for section in sections:
        if section.kind != _SHT_SYMTAB:
            continue
        strtab = sections[section.link].offset
        for at in range(section.offset + 24, section.offset + section.size, 24):  # entry 0 is the null symbol
            name_at, info, _, shndx, value, size = struct.unpack_from("<IBBHQQ", obj, at)
            yield obj[strtab + name_at : obj.index(b"\0", strtab + name_at)].decode(), info, shndx, value, size


def symbols(obj):
    """{name: Symbol(value, size, section index)} of the symbols `obj` defines
    (a code object's values are virtual addresses)."""
    return {
        name: Symbol(value, size, shndx)
        for name, _, shndx, value, size in _symbol_entries(obj)
        if shndx != _SHN_UNDEF and name
    }


def offset(obj, address, size):
    """The file offset of the `size` bytes at virtual `address` of a section with
    contents; LlvmError if none holds them all."""
    for section in _sections(obj):
        if (
            section.kind != _SHT_NOBITS
            and section.addr
            and section.addr <= address
            and address + size <= section.addr + section.size
        ):
            return section.offset + address - section.addr
    raise LlvmError(
        f"expected {size} bytes at address 0x{address:x} inside one loaded section, got none that holds them"
    )


def read(obj, address, size):
    """The `size` bytes at virtual `address` (see offset)."""
    at = offset(obj, address, size)
    return bytes(obj[at : at + size])


# MessagePack (github.com/msgpack/msgpack/blob/master/spec.md), decoding only.
# First byte -> (struct format of the length or value, what it is).
_FIXED = {
    0xC0: (None, "nil"),
    0xC2: (None, "false"),
    0xC3: (None, "true"),
    0xC4: (">B", "bin"),
    0xC5: (">H", "bin"),
    0xC6: (">I", "bin"),
    0xCA: (">f", "value"),
    0xCB: (">d", "value"),
    0xCC: (">B", "value"),
    0xCD: (">H", "value"),
    0xCE: (">I", "value"),
    0xCF: (">Q", "value"),
    0xD0: (">b", "value"),
    0xD1: (">h", "value"),
    0xD2: (">i", "value"),
    0xD3: (">q", "value"),
    0xD9: (">B", "str"),
    0xDA: (">H", "str"),
    0xDB: (">I", "str"),
    0xDC: (">H", "array"),
    0xDD: (">I", "array"),
    0xDE: (">H", "map"),
    0xDF: (">I", "map"),
}
_CONSTANTS = {"nil": None, "false": False, "true": True}


def unpack(data, at):
    """(value, offset after it) of the MessagePack value at data[at]."""
    first = data[at]
    at += 1
    if first <= 0x7F:
        return first, at
    if first >= 0xE0:
        return first - 0x100, at
    if 0xA0 <= first <= 0xBF:
        kind, count = "str", first & 0x1F
    elif 0x90 <= first <= 0x9F:
        kind, count = "array", first & 0x0F
    elif 0x80 <= first <= 0x8F:
        kind, count = "map", first & 0x0F
    elif first in _FIXED:
        fmt, kind = _FIXED[first]
        if fmt is None:
            return _CONSTANTS[kind], at
        (count,) = struct.unpack_from(fmt, data, at)
        at += struct.calcsize(fmt)
        if kind == "value":
            return count, at
    else:
        raise LlvmError(f"AMDGPU metadata: MessagePack type 0x{first:02x} at byte {at - 1} is not one the note uses")
    if kind in ("str", "bin"):
        raw = bytes(data[at : at + count])
        return (raw.decode() if kind == "str" else raw), at + count
    if kind == "array":
        items = []
        for _ in range(count):
            item, at = unpack(data, at)
            items.append(item)
        return items, at
    pairs = {}
    for _ in range(count):
        key, at = unpack(data, at)
        pairs[key], at = unpack(data, at)
    return pairs, at
