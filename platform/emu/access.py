"""What loads and stores share: the data forms of a register, poisoning a
load's destination, and putting a memory operation in flight.

A form says how `size` bytes of memory meet the registers: "dw" whole
dwords (size/4 registers), "u"/"s" a byte or short zero- or sign-extended
into one register, "lo"/"hi" a short into one half of a register (the other
half kept: d16 loads), "lo_u"/"lo_s"/"hi_u"/"hi_s" a byte extended to 16 bits
into one half. A store's form says which bytes of its registers it writes.
"""

import numpy as np

from emu import state

LOAD_FORMS = {
    "dword": (4, "dw"),
    "dwordx2": (8, "dw"),
    "dwordx3": (12, "dw"),
    "dwordx4": (16, "dw"),
    "b32": (4, "dw"),
    "b64": (8, "dw"),
    "b96": (12, "dw"),
    "b128": (16, "dw"),
    "ubyte": (1, "u"),
    "u8": (1, "u"),
    "sbyte": (1, "s"),
    "i8": (1, "s"),
    "ushort": (2, "u"),
    "u16": (2, "u"),
    "sshort": (2, "s"),
    "i16": (2, "s"),
    "short_d16": (2, "lo"),
    "d16_b16": (2, "lo"),
    "short_d16_hi": (2, "hi"),
    "d16_hi_b16": (2, "hi"),
    "ubyte_d16": (1, "lo_u"),
    "d16_u8": (1, "lo_u"),
    "sbyte_d16": (1, "lo_s"),
    "d16_i8": (1, "lo_s"),
    "ubyte_d16_hi": (1, "hi_u"),
    "d16_hi_u8": (1, "hi_u"),
    "sbyte_d16_hi": (1, "hi_s"),
    "d16_hi_i8": (1, "hi_s"),
    # the spellings of ds_read_/ds_load_ (lds.READS)
    "b8": (1, "u"),
    "u16_d16": (2, "lo"),
    "u16_d16_hi": (2, "hi"),
    "u8_d16": (1, "lo_u"),
    "u8_d16_hi": (1, "hi_u"),
    "i8_d16": (1, "lo_s"),
    "i8_d16_hi": (1, "hi_s"),
}
STORE_FORMS = {
    "byte": (1, "lo"),
    "b8": (1, "lo"),
    "short": (2, "lo"),
    "b16": (2, "lo"),
    "dword": (4, "dw"),
    "dwordx2": (8, "dw"),
    "dwordx3": (12, "dw"),
    "dwordx4": (16, "dw"),
    "b32": (4, "dw"),
    "b64": (8, "dw"),
    "b96": (12, "dw"),
    "b128": (16, "dw"),
    "byte_d16_hi": (1, "hi"),
    "d16_hi_b8": (1, "hi"),
    "b8_d16_hi": (1, "hi"),
    "short_d16_hi": (2, "hi"),
    "d16_hi_b16": (2, "hi"),
    "b16_d16_hi": (2, "hi"),
}


def registers(size, form):
    return size // 4 if form == "dw" else 1


_POISON: dict = {}


def poison_bytes(lanes, size):
    key = (lanes, size)
    if key not in _POISON:
        _POISON[key] = np.broadcast_to(np.resize(state.POISON_BYTES, size), key)
    return _POISON[key]


def register_loader(op, size, form):
    """write(wave, bytes (lanes, size), mask): land loaded bytes in op's registers' masked lanes."""
    file, first = ("v" if op.kind == "v" else "a"), op.index
    n = registers(size, form)

    if form == "dw":

        def write(w, raw, mask):
            regs = getattr(w, file)[:, first : first + n]
            words = np.ascontiguousarray(raw).view(np.uint32)
            if mask is w.exec and w.full:
                regs[...] = words
            else:
                np.copyto(regs, words, where=mask[:, None])

        return write
    if form in ("u", "s"):
        dtype = {(1, "u"): np.uint8, (1, "s"): np.int8, (2, "u"): np.uint16, (2, "s"): np.int16}[(size, form)]

        def write(w, raw, mask):
            value = np.ascontiguousarray(raw).view(dtype)[:, 0].astype(np.int64).astype(np.uint32)
            np.copyto(getattr(w, file)[:, first], value, where=mask)

        return write
    high = form.startswith("hi")
    signed = form.endswith("_s")

    def write(w, raw, mask):
        raw = np.ascontiguousarray(raw)
        if size == 2:
            half = raw.view(np.uint16)[:, 0].astype(np.uint32)
        else:
            half = (raw.view(np.int8) if signed else raw)[:, 0].astype(np.int64).astype(np.uint32) & np.uint32(0xFFFF)
        col = getattr(w, file)[:, first]
        merged = (
            (col & np.uint32(0x0000FFFF)) | (half << np.uint32(16)) if high else (col & np.uint32(0xFFFF0000)) | half
        )
        np.copyto(col, merged, where=mask)

    return write


def register_bytes(op, size, form):
    """read(wave) -> (lanes, size) uint8: the bytes a store of `form` takes from op's registers."""
    file, first = ("v" if op.kind == "v" else "a"), op.index
    n = registers(size, form)
    if form == "dw":
        return lambda w: np.ascontiguousarray(getattr(w, file)[:, first : first + n]).view(np.uint8)
    skip = 2 if form == "hi" else 0
    return lambda w: np.ascontiguousarray(getattr(w, file)[:, first : first + 1]).view(np.uint8)[:, skip : skip + size]


def in_flight(w, counter, retire, address):
    """A memory operation issued: counted by `counter` until a wait lands it."""
    entry = state.Pending(counter, retire, address)
    w.pending.append(entry)
    return entry


def load(w, counter, write, data, mask, address):
    """A load's destination holds poison until its wait lands `data`."""
    write(w, poison_bytes(w.lanes, data.shape[1]), mask)
    in_flight(w, counter, lambda: write(w, data, mask), address)
