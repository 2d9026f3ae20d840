"""LDS (ds_*) semantics.

The address of a lane is vaddr + offset (16 bits, unsigned), in bytes from
the start of the workgroup's LDS; ds_read2/ds_write2 address two elements,
at offset0 and offset1 elements (x64 for the st64 forms). An access whose
bytes do not all lie inside the workgroup's allocation reads 0 and writes
nothing, as the ISA's LDS range check says; `out_of_range` counts them.

Ordering: a wave's LDS operations complete in the order it issues them, so
its own reads see its own writes. Another wave sees a write only once the
writing wave's wait has retired it: a barrier alone orders nothing (the
ISA asks for s_waitcnt lgkmcnt(0) / s_wait_dscnt 0 before it), so a kernel
that lacks that wait reads stale bytes here. Reads take LDS's bytes when
issued and land in registers when a wait retires them.

ds_bpermute_b32 and ds_swizzle_b32 move data between a wave's lanes through
the LDS unit (no LDS bytes): lane i gets vdata of the lane that its address
((vaddr + offset) / 4, modulo the wave) or the swizzle pattern names, 0 from
an inactive lane, landing when its wait retires it like a read. A swizzle's
pattern is its offset: bit 15 set, a quad permutation (lane i of each 4 takes
lane (offset >> 2(i % 4)) & 3 of its quad); else a bitmask permutation of each
32 lanes, ((i & and) | or) ^ xor with and, or and xor offset bits 0-4, 5-9
and 10-14. The disassembler spells it swizzle(SWAP,n), swizzle(REVERSE,n),
swizzle(BROADCAST,n,lane), swizzle(QUAD_PERM,a,b,c,d) or a number.

ds_read_b64_tr_b16 (gfx950): in each group of 16 lanes, lane i gets 16-bit
element i % 4 of the 8 bytes that lane 4j + i // 4 of its group addresses,
for j = 0..3 (platform/ir/builder.py, load_transpose; the interpreter's
model of the same instruction).
"""

import re

import numpy as np

from emu import access
from emu import operands as O
from emu.errors import ExecutionError
from emu.table import register
from emu.valu import BindError

# The LDS spellings of access's forms: ds_read_/ds_load_ + READS, ds_write_/ds_store_ + WRITES.
READS = {
    s: access.LOAD_FORMS[s]
    for s in ("b32", "b64", "b96", "b128", "u8", "i8", "u16", "i16")
    + ("u16_d16", "u16_d16_hi", "u8_d16", "u8_d16_hi", "i8_d16", "i8_d16_hi")
}
WRITES = {s: access.STORE_FORMS[s] for s in ("b8", "b16", "b32", "b64", "b96", "b128", "b8_d16_hi", "b16_d16_hi")}


def _offset(inst, name="offset"):
    return int(inst.modifier(name, "0"), 0)


def _addresses(vaddr, offset):
    i = vaddr.index
    return lambda w: w.v[:, i].astype(np.int64) + offset


def _order(w):
    """This wave's earlier LDS writes reach LDS before its next LDS operation."""
    if w.lds_writes:
        for entry in w.lds_writes:
            entry.land()
        w.lds_writes.clear()


_SPANS = {n: np.arange(n) for n in (1, 2, 4, 8, 12, 16)}


def _in_range(w, addrs, size, mask):
    """The lanes of `mask` whose access lies inside the LDS allocation; the others are counted."""
    limit = w.workgroup.lds.size - size
    live = addrs if w.full else addrs[mask]
    if not live.size or (live.min() >= 0 and live.max() <= limit):  # two reductions, no mask arithmetic
        return mask
    ok = mask & (addrs >= 0) & (addrs <= limit)
    w.lds_out_of_range += int(np.count_nonzero(mask & ~ok))
    return ok


def _gather(w, addrs, size, mask, at):
    if w.figures is not None:
        w.figures.lds_access(at, addrs, mask, size)
    lds = w.workgroup.lds
    ok = _in_range(w, addrs, size, mask)
    if ok.all():
        return lds[addrs[:, None] + _SPANS[size]]
    data = np.zeros((w.lanes, size), np.uint8)
    if ok.any():
        data[ok] = lds[addrs[ok][:, None] + _SPANS[size]]
    return data


def _scatter(w, addrs, data, mask, counter, at):
    if w.figures is not None:
        w.figures.lds_access(at, addrs, mask, data.shape[1])
    lds = w.workgroup.lds
    size = data.shape[1]
    ok = _in_range(w, addrs, size, mask)
    # Lanes in order: where two write the same byte, the higher lane's stays.
    if ok.all():
        where, values = addrs[:, None] + _SPANS[size], data
    else:
        where, values = addrs[ok][:, None] + _SPANS[size], data[ok]

    def retire():
        lds[where] = values

    entry = access.in_flight(w, counter, retire, at)
    w.lds_writes.append(entry)


def bind_read(size, form):
    def binder(inst, ctx):
        ops = [O.parse(t) for t in inst.operands]
        if len(ops) != 2:
            raise BindError(f"expected vdst, vaddr; got {len(ops)} operands")
        vdst, vaddr = ops
        address = _addresses(vaddr, _offset(inst))
        write = access.register_loader(vdst, size, form)
        counter, at = ctx.counters["lds"], inst.address

        def step(w):
            _order(w)
            mask = w.exec
            access.load(w, counter, write, _gather(w, address(w), size, mask, at), mask, at)

        return step

    return binder


def bind_write(size, form):
    def binder(inst, ctx):
        ops = [O.parse(t) for t in inst.operands]
        if len(ops) != 2:
            raise BindError(f"expected vaddr, vdata; got {len(ops)} operands")
        vaddr, vdata = ops
        address = _addresses(vaddr, _offset(inst))
        read = access.register_bytes(vdata, size, form)
        counter, at = ctx.counters["lds"], inst.address

        def step(w):
            _order(w)
            _scatter(w, address(w), read(w), w.exec, counter, at)

        return step

    return binder


def bind_read2(size, stride64):
    """ds_read2(st64)_b32/b64 vdst, vaddr offset0:A offset1:B: elements at A and B."""
    scale = size * (64 if stride64 else 1)

    def binder(inst, ctx):
        vdst, vaddr = [O.parse(t) for t in inst.operands]
        addrs = [_addresses(vaddr, scale * _offset(inst, f"offset{k}")) for k in (0, 1)]
        write = access.register_loader(vdst, 2 * size, "dw")
        counter, at = ctx.counters["lds"], inst.address

        def step(w):
            _order(w)
            mask = w.exec
            data = np.concatenate([_gather(w, a(w), size, mask, at) for a in addrs], axis=1)
            access.load(w, counter, write, data, mask, at)

        return step

    return binder


def bind_write2(size, stride64):
    """ds_write2(st64)_b32/b64 vaddr, vdata0, vdata1 offset0:A offset1:B."""
    scale = size * (64 if stride64 else 1)

    def binder(inst, ctx):
        vaddr, d0, d1 = [O.parse(t) for t in inst.operands]
        addrs = [_addresses(vaddr, scale * _offset(inst, f"offset{k}")) for k in (0, 1)]
        reads = [access.register_bytes(d, size, "dw") for d in (d0, d1)]
        counter, at = ctx.counters["lds"], inst.address

        def step(w):
            _order(w)
            mask = w.exec
            for a, r in zip(addrs, reads):
                _scatter(w, a(w), r(w), mask, counter, at)

        return step

    return binder


_GROUP = 16


def bind_read_tr_b16(inst, ctx):
    vdst, vaddr = [O.parse(t) for t in inst.operands]
    address = _addresses(vaddr, _offset(inst))
    write = access.register_loader(vdst, 8, "dw")
    counter, at = ctx.counters["lds"], inst.address
    lanes = ctx.lanes
    i = np.arange(lanes) % _GROUP
    start = np.arange(lanes) - i
    # source lane and element of result element j of each lane
    src = np.stack([start + 4 * j + i // 4 for j in range(4)], axis=1)
    elem = np.broadcast_to((i % 4)[:, None], (lanes, 4))

    def step(w):
        _order(w)
        mask = w.exec
        groups = mask.reshape(-1, _GROUP)
        if (groups.any(axis=1) & ~groups.all(axis=1)).any():
            g = int(np.flatnonzero(groups.any(axis=1) & ~groups.all(axis=1))[0])
            raise ExecutionError(
                f"ds_read_b64_tr_b16 at 0x{at:x}: lanes {g * _GROUP}..{g * _GROUP + 15} partly active; they exchange "
                "data"
            )
        raw = _gather(w, address(w), 8, mask, at).view(np.uint16)
        data = np.ascontiguousarray(raw[src, elem]).view(np.uint8)
        access.load(w, counter, write, data, mask, at)

    return step


def _moved(w, data, src):
    """(lanes, 4) bytes: lane i gets data[src[i]], 0 where src[i] is inactive; read as a load retires."""
    out = np.where(w.exec[src][:, None], data[src], np.uint8(0))
    return np.ascontiguousarray(out)


def bind_bpermute(inst, ctx):
    """ds_bpermute_b32 vdst, vaddr, vdata [offset:N]."""
    ops = [O.parse(t) for t in inst.operands]
    if len(ops) != 3:
        raise BindError(f"expected vdst, vaddr, vdata; got {len(ops)} operands")
    vdst, vaddr, vdata = ops
    address = _addresses(vaddr, _offset(inst))
    write, read = access.register_loader(vdst, 4, "dw"), access.register_bytes(vdata, 4, "dw")
    counter, at = ctx.counters["lds"], inst.address

    def step(w):
        _order(w)
        src = (address(w) // 4) % w.lanes
        access.load(w, counter, write, _moved(w, read(w), src), w.exec, at)

    return step


_SWIZZLE = re.compile(r"swizzle\((\w+)((?:,\d+)*)\)")


def swizzle_offset(text):
    """The 16-bit offset that a ds_swizzle_b32 offset modifier spells (the module doc lists the forms)."""
    m = _SWIZZLE.fullmatch(text)
    if m is None:
        return int(text, 0)
    mode, args = m.group(1), [int(x) for x in m.group(2).split(",")[1:]]
    if mode == "QUAD_PERM" and len(args) == 4:
        return 0x8000 | sum(a << (2 * i) for i, a in enumerate(args))
    if mode == "SWAP" and len(args) == 1:
        return 0x1F | args[0] << 10
    if mode == "REVERSE" and len(args) == 1:
        return 0x1F | (args[0] - 1) << 10
    if mode == "BROADCAST" and len(args) == 2:
        return (0x1F & ~(args[0] - 1)) | args[1] << 5
    raise BindError(f"expected a swizzle offset of SWAP, REVERSE, BROADCAST or QUAD_PERM, got {text!r}")


def swizzle_sources(offset, lanes):
    """The lane each lane of a ds_swizzle_b32 with `offset` reads (the module doc says how)."""
    i = np.arange(lanes)
    if offset & 0x8000:
        return i - i % 4 + (offset >> (2 * (i % 4))) % 4
    within = i % 32
    return i - within + (((within & (offset & 0x1F)) | (offset >> 5 & 0x1F)) ^ (offset >> 10 & 0x1F))


def bind_swizzle(inst, ctx):
    """ds_swizzle_b32 vdst, vdata offset:PATTERN."""
    ops = [O.parse(t) for t in inst.operands]
    if len(ops) != 2:
        raise BindError(f"expected vdst, vdata; got {len(ops)} operands")
    vdst, vdata = ops
    src = swizzle_sources(swizzle_offset(inst.modifier("offset", "0")), ctx.lanes)
    write, read = access.register_loader(vdst, 4, "dw"), access.register_bytes(vdata, 4, "dw")
    counter, at = ctx.counters["lds"], inst.address

    def step(w):
        _order(w)
        access.load(w, counter, write, _moved(w, read(w), src), w.exec, at)

    return step


def _entries():
    out = {}
    for prefix in ("ds_read_", "ds_load_"):
        for suffix, (size, form) in READS.items():
            out[prefix + suffix] = bind_read(size, form)
    for prefix in ("ds_write_", "ds_store_"):
        for suffix, (size, form) in WRITES.items():
            out[prefix + suffix] = bind_write(size, form)
    for size, suffix in ((4, "b32"), (8, "b64")):
        out[f"ds_read2_{suffix}"] = out[f"ds_load_2addr_{suffix}"] = bind_read2(size, False)
        out[f"ds_read2st64_{suffix}"] = out[f"ds_load_2addr_stride64_{suffix}"] = bind_read2(size, True)
        out[f"ds_write2_{suffix}"] = out[f"ds_store_2addr_{suffix}"] = bind_write2(size, False)
        out[f"ds_write2st64_{suffix}"] = out[f"ds_store_2addr_stride64_{suffix}"] = bind_write2(size, True)
    out["ds_read_b64_tr_b16"] = bind_read_tr_b16
    out["ds_bpermute_b32"] = bind_bpermute
    out["ds_swizzle_b32"] = bind_swizzle
    return out


register(_entries())
