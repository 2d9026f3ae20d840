"""Vector memory: global, buffer, scratch and flat loads and stores, atomics,
and the direct-to-LDS loads.

Addresses (the ISA's, per lane):
  global  vaddr (64-bit) + offset, or saddr (64-bit SGPRs) + vaddr (32-bit) + offset
  buffer  V#.base + soffset + offset + voffset (offen) [+ index * stride (idxen)]
  scratch saddr + vaddr + offset, in the lane's own private segment
  flat    a 64-bit address: global, or an aperture (LDS, private)

Buffer range checks (raw buffers: stride 0): a dword of a load or store is
in range when its bytes, from voffset + offset, all lie below num_records; a
byte or short access likewise. soffset is not range checked (the ISA checks
the buffer offset; LLVM's kernels keep soffset 0 or wave-uniform). An
out-of-range load gives 0 and an out-of-range store writes nothing.

Loads land when a wait retires them (access.load); stores and atomics write
memory when issued, and are counted until retired. Direct-to-LDS loads
(`lds`, gfx950) write LDS at M0 + offset + lane * size, poisoned until retired.
"""

import numpy as np

from emu import access, state
from emu import operands as O
from emu.errors import ExecutionError, MemoryFault
from emu.table import register
from emu.valu import BindError

_U64 = np.uint64


def _offset(inst):
    return int(inst.modifier("offset", "0"), 0)


def _what(inst, ctx):
    return f"{inst.mnemonic} at 0x{inst.address:x} in {ctx.kernel}"


def _global_address(vaddr, saddr, offset):
    if saddr.kind == "off":
        i = vaddr.index
        return lambda w: w.v[:, i : i + 2].view(_U64)[:, 0] + _U64(offset & 0xFFFFFFFFFFFFFFFF)
    base = O.scalar_reader(saddr, 64)
    if vaddr.kind == "off":
        return lambda w: np.full(w.lanes, (base(w) + offset) & 0xFFFFFFFFFFFFFFFF, _U64)
    i = vaddr.index
    return lambda w: w.v[:, i].astype(_U64) + _U64(base(w)) + _U64(offset & 0xFFFFFFFFFFFFFFFF)


def _count(w, at, addrs, mask, size):
    if w.figures is not None:
        w.figures.memory_access(at, addrs, mask, size)


def _counter(ctx, kind):
    return ctx.counters[kind]


# -- global -------------------------------------------------------------------------------


def bind_global_load(size, form):
    def binder(inst, ctx):
        ops = [O.parse(t) for t in inst.operands]
        if len(ops) != 3:
            raise BindError(f"expected vdst, vaddr, saddr; got {len(ops)} operands")
        vdst, vaddr, saddr = ops
        address = _global_address(vaddr, saddr, _offset(inst))
        write = access.register_loader(vdst, size, form)
        counter, what, at = _counter(ctx, "load"), _what(inst, ctx), inst.address

        def step(w):
            mask = w.exec
            addrs = address(w)
            _count(w, at, addrs, mask, size)
            access.load(w, counter, write, w.memory.read(addrs, size, mask, what), mask, at)

        return step

    return binder


def bind_global_store(size, form):
    def binder(inst, ctx):
        ops = [O.parse(t) for t in inst.operands]
        if len(ops) != 3:
            raise BindError(f"expected vaddr, vdata, saddr; got {len(ops)} operands")
        vaddr, vdata, saddr = ops
        address = _global_address(vaddr, saddr, _offset(inst))
        data = access.register_bytes(vdata, size, form)
        counter, what, at = _counter(ctx, "store"), _what(inst, ctx), inst.address

        def step(w):
            mask = w.exec
            addrs = address(w)
            _count(w, at, addrs, mask, size)
            w.memory.write(addrs, data(w), mask, what)
            access.in_flight(w, counter, None, at)

        return step

    return binder


def _returns(inst):
    return len(inst.operands) == 4


def bind_global_atomic(kind):
    """global_atomic_*: vaddr, vdata, saddr (no return) or vdst, vaddr, vdata, saddr.
    Lanes apply in lane order (a deterministic serialisation)."""
    dtype, op = _ATOMICS[kind]

    def binder(inst, ctx):
        ops = [O.parse(t) for t in inst.operands]
        ret = _returns(inst)
        vdst, vaddr, vdata, saddr = ops if ret else [None, *ops]
        address = _global_address(vaddr, saddr, _offset(inst))
        read = O.vector_reader(vdata, {np.float32: "f32", np.uint32: "u32", np.int32: "i32"}[dtype])
        write = access.register_loader(vdst, 4, "dw") if ret else None
        counter = _counter(ctx, "load" if ret else "store")
        what, at = _what(inst, ctx), inst.address

        def step(w):
            mask = w.exec
            addrs = address(w)
            _count(w, at, addrs, mask, 4)
            values = np.broadcast_to(read(w), (w.lanes,))
            old = np.zeros(w.lanes, dtype)
            for lane in np.flatnonzero(mask):
                one = np.zeros(w.lanes, bool)
                one[lane] = True
                before = w.memory.read(addrs, 4, one, what)[lane].view(dtype)[0]
                old[lane] = before
                after = np.array([op(before, values[lane])], dtype)
                data = np.zeros((w.lanes, 4), np.uint8)
                data[lane] = after.view(np.uint8)
                w.memory.write(addrs, data, one, what)
            if ret:
                access.load(w, counter, write, old.view(np.uint8).reshape(w.lanes, 4), mask, at)
            else:
                access.in_flight(w, counter, None, at)

        return step

    return binder


_ATOMICS = {
    "add_f32": (np.float32, lambda a, b: np.float32(a) + np.float32(b)),
    "add_u32": (np.uint32, lambda a, b: np.uint32((int(a) + int(b)) & 0xFFFFFFFF)),
    "max_i32": (np.int32, max),
    "min_i32": (np.int32, min),
    "max_u32": (np.uint32, max),
    "min_u32": (np.uint32, min),
}


def bind_global_load_lds(size):
    """global_load_lds_dwordx4 vaddr, saddr: LDS at M0 + offset + lane * size."""

    def binder(inst, ctx):
        vaddr, saddr = [O.parse(t) for t in inst.operands]
        offset = _offset(inst)
        address = _global_address(vaddr, saddr, offset)
        counter, what, at = _counter(ctx, "load"), _what(inst, ctx), inst.address

        def step(w):
            mask = w.exec
            addrs = address(w)
            _count(w, at, addrs, mask, size)
            data = w.memory.read(addrs, size, mask, what)
            _to_lds(w, data, mask, (w.s[state.M0] + offset) & 0xFFFFFFFF, size, counter, at)

        return step

    return binder


def _to_lds(w, data, mask, base, size, counter, at):
    if w.figures is not None:
        w.figures.lds_access(at, base + np.arange(w.lanes, dtype=np.int64) * size, mask, size)
    lds = w.workgroup.lds
    where = base + np.arange(w.lanes, dtype=np.int64) * size
    if (where[mask] + size > lds.size).any():
        lane = int(np.flatnonzero(mask & (where + size > lds.size))[0])
        raise MemoryFault(
            f"direct-to-LDS load at 0x{at:x}: lane {lane} writes LDS bytes {where[lane]}..{where[lane] + size - 1}, "
            f"past its {lds.size}"
        )
    span = where[mask][:, None] + np.arange(size)
    lds[span] = access.poison_bytes(int(mask.sum()), size)
    landed = data[mask]

    def retire():
        lds[span] = landed

    access.in_flight(w, counter, retire, at)


# -- buffer -------------------------------------------------------------------------------


class _Resource:
    """A buffer resource descriptor (V#), read from four SGPRs."""

    __slots__ = ("base", "stride", "records", "check")

    def __init__(self, words, generation, what):
        w0, w1, w2, w3 = words
        self.base = w0 | (w1 & 0xFFFF) << 32
        self.stride = (w1 >> 16) & 0x3FFF
        self.records = w2
        swizzled = bool(w1 >> 31 & 1) if generation == "gfx9" else False
        add_tid = bool(w3 >> 23 & 1)
        if self.stride or swizzled or add_tid:
            raise ExecutionError(
                f"{what}: buffer resource with stride {self.stride}, swizzle {swizzled}, add_tid {add_tid}: only raw "
                "buffers are emulated"
            )
        self.check = True
        if generation != "gfx9":
            oob = (w3 >> 28) & 3
            if oob != 3:
                raise ExecutionError(f"{what}: buffer resource OOB_SELECT {oob}: only 3 (raw) is emulated")


def _buffer_operands(inst, lds):
    ops = [O.parse(t) for t in inst.operands]
    if lds:
        if len(ops) != 3:
            raise BindError(f"expected vaddr, srsrc, soffset; got {len(ops)} operands")
        return None, *ops
    if len(ops) != 4:
        raise BindError(f"expected vdata, vaddr, srsrc, soffset; got {len(ops)} operands")
    return ops


def _buffer_offsets(inst, vaddr):
    """A function of the wave giving each lane's buffer offset (voffset + offset), int64."""
    if inst.modifier("idxen"):
        raise BindError("idxen (structured buffers)")
    offset = _offset(inst)
    if inst.modifier("offen"):
        i = vaddr.index
        return lambda w: w.v[:, i].astype(np.int64) + offset
    return lambda w: np.full(w.lanes, offset, np.int64)


def _buffer_access(inst, ctx, vaddr, srsrc, soffset):
    """step-time (resource, offsets, soffset) readers."""
    offsets = _buffer_offsets(inst, vaddr)
    rsrc = srsrc.index
    sreader = O.scalar_reader(soffset, 32)
    generation, what = ctx.generation, _what(inst, ctx)

    last = [None, None]  # the V# words of the last execution and their _Resource: decoded once per change

    def resource(w):
        words = w.s[rsrc : rsrc + 4]
        if words != last[0]:
            last[:] = words, _Resource(words, generation, what)
        return last[1]

    return resource, offsets, sreader


def _components(size, form):
    """(byte offset, bytes) of each separately range-checked part."""
    if form == "dw":
        return [(4 * i, 4) for i in range(size // 4)]
    return [(0, size)]


def buffer_read(w, r, offs, soff, size, form, mask, what, at):
    base = _U64(r.base + soff)
    whole = mask & (offs + size <= r.records)
    _count(w, at, base + offs.astype(_U64), whole, size)
    if np.count_nonzero(whole) == np.count_nonzero(mask):  # every active lane in range: one access
        return w.memory.read(base + offs.astype(_U64), size, mask, what)
    data = np.zeros((w.lanes, size), np.uint8)
    for at, n in _components(size, form):
        ok = mask & (offs + at + n <= r.records)
        if ok.any():
            data[:, at : at + n] = w.memory.read(base + (offs + at).astype(_U64), n, ok, what)
    return data


def bind_buffer_load(size, form):
    def binder(inst, ctx):
        lds = bool(inst.modifier("lds"))
        vdata, vaddr, srsrc, soffset = _buffer_operands(inst, lds)
        resource, offsets, sreader = _buffer_access(inst, ctx, vaddr, srsrc, soffset)
        write = None if lds else access.register_loader(vdata, size, form)
        counter, what, at, offset = _counter(ctx, "load"), _what(inst, ctx), inst.address, _offset(inst)

        def step(w):
            mask = w.exec
            data = buffer_read(w, resource(w), offsets(w), sreader(w), size, form, mask, what, at)
            if lds:
                _to_lds(w, data, mask, (w.s[state.M0] + offset) & 0xFFFFFFFF, size, counter, at)
            else:
                access.load(w, counter, write, data, mask, at)

        return step

    return binder


def bind_buffer_store(size, form):
    def binder(inst, ctx):
        vdata, vaddr, srsrc, soffset = _buffer_operands(inst, False)
        resource, offsets, sreader = _buffer_access(inst, ctx, vaddr, srsrc, soffset)
        read = access.register_bytes(vdata, size, form)
        counter, what, at = _counter(ctx, "store"), _what(inst, ctx), inst.address

        def step(w):
            mask = w.exec
            r, offs, data = resource(w), offsets(w), read(w)
            base = _U64(r.base + sreader(w))
            whole = mask & (offs + size <= r.records)
            _count(w, at, base + offs.astype(_U64), whole, size)
            if np.count_nonzero(whole) == np.count_nonzero(mask):  # every active lane in range: one access
                w.memory.write(base + offs.astype(_U64), data, mask, what)
                access.in_flight(w, counter, None, at)
                return
            for start, n in _components(size, form):
                ok = mask & (offs + start + n <= r.records)
                if ok.any():
                    w.memory.write(
                        base + (offs + start).astype(_U64), np.ascontiguousarray(data[:, start : start + n]), ok, what
                    )
            access.in_flight(w, counter, None, at)

        return step

    return binder


# -- scratch ------------------------------------------------------------------------------


def _scratch_address(vaddr, saddr, offset):
    parts = []
    if vaddr.kind != "off":
        i = vaddr.index
        parts.append(lambda w: w.v[:, i].astype(np.int64))
    if saddr.kind != "off":
        read = O.scalar_reader(saddr, 32)
        parts.append(lambda w: np.int64(read(w)))
    return lambda w: sum((p(w) for p in parts), np.full(w.lanes, offset, np.int64))


def _private(w, addrs, size, mask, what):
    """(lane index, byte index) arrays into the wave's private segments; MemoryFault if outside."""
    room = w.private.shape[1]
    bad = np.flatnonzero(mask & ((addrs < 0) | (addrs + size > room)))
    if bad.size:
        lane = int(bad[0])
        raise MemoryFault(
            f"{what}: lane {lane} accesses private bytes {int(addrs[lane])}..{int(addrs[lane]) + size - 1}, outside "
            f"its {room}"
        )
    lanes = np.flatnonzero(mask)
    return lanes[:, None], addrs[lanes][:, None] + np.arange(size)


def bind_scratch_load(size, form):
    def binder(inst, ctx):
        vdst, vaddr, saddr = [O.parse(t) for t in inst.operands]
        address = _scratch_address(vaddr, saddr, _offset(inst))
        write = access.register_loader(vdst, size, form)
        counter, what, at = _counter(ctx, "load"), _what(inst, ctx), inst.address

        def step(w):
            mask = w.exec
            lanes, cols = _private(w, address(w), size, mask, what)
            data = np.zeros((w.lanes, size), np.uint8)
            data[mask] = w.private[lanes, cols]
            access.load(w, counter, write, data, mask, at)

        return step

    return binder


def bind_scratch_store(size, form):
    def binder(inst, ctx):
        vaddr, vdata, saddr = [O.parse(t) for t in inst.operands]
        address = _scratch_address(vaddr, saddr, _offset(inst))
        read = access.register_bytes(vdata, size, form)
        counter, what, at = _counter(ctx, "store"), _what(inst, ctx), inst.address

        def step(w):
            mask = w.exec
            lanes, cols = _private(w, address(w), size, mask, what)
            w.private[lanes, cols] = read(w)[mask]
            access.in_flight(w, counter, None, at)

        return step

    return binder


# -- the table ------------------------------------------------------------------------------


def _entries():
    out = {}
    loaders = {"global": bind_global_load, "buffer": bind_buffer_load, "scratch": bind_scratch_load}
    storers = {"global": bind_global_store, "buffer": bind_buffer_store, "scratch": bind_scratch_store}
    for space in loaders:
        for suffix, (size, form) in access.LOAD_FORMS.items():
            out[f"{space}_load_{suffix}"] = loaders[space](size, form)
        for suffix, (size, form) in access.STORE_FORMS.items():
            out[f"{space}_store_{suffix}"] = storers[space](size, form)
    for kind in _ATOMICS:
        out[f"global_atomic_{kind}"] = bind_global_atomic(kind)
    out["global_load_lds_dwordx4"] = bind_global_load_lds(16)
    out["global_load_lds_dword"] = bind_global_load_lds(4)
    return out


register(_entries())
