"""The global address space: a sparse set of numpy byte buffers at fixed
addresses, each followed by an unmapped gap, so that an access past a
buffer's end touches no other buffer and is a MemoryFault naming the
instruction, the lane and the address.

Also the apertures (where flat addresses of LDS and scratch would live) and
the dispatch packet layout the HIP runtime fills (hsa_kernel_dispatch_packet_t).
"""

import numpy as np

from emu.errors import MemoryFault

FIRST = 0x1_0000_0000  # no buffer below 4 GiB: a 32-bit offset taken for an address faults
GAP = 1 << 20  # unmapped bytes after every buffer
ALIGN = 1 << 16
_SPANS: dict = {n: np.arange(n, dtype=np.int64) for n in range(1, 65)}  # the bytes of one lane's access (at most 64)
# The aperture bases, as src_shared_base / src_private_base give them (high halves).
APERTURES = {
    "shared_base": 0x0001_0000_0000_0000,
    "shared_limit": 0x0001_0000_FFFF_FFFF,
    "private_base": 0x0002_0000_0000_0000,
    "private_limit": 0x0002_0000_FFFF_FFFF,
}


class Memory:
    def __init__(self):
        self.bases = []  # sorted
        self.buffers = []  # np.uint8 arrays, by base order
        self.names = []
        self._next = FIRST
        self._starts = np.zeros(0, np.uint64)
        self._ends = np.zeros(0, np.uint64)

    def alloc(self, nbytes, name=""):
        """A zeroed buffer of `nbytes`; its address."""
        return self.place(np.zeros(max(int(nbytes), 1), np.uint8), name)

    def place(self, data, name=""):
        """Map a copy of `data`'s bytes; its address."""
        raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8).copy()
        base = self._next
        self._next = -(-(base + max(raw.size, 1) + GAP) // ALIGN) * ALIGN
        self.bases.append(base)
        self.buffers.append(raw)
        self.names.append(name)
        self._starts = np.array(self.bases, np.uint64)
        self._ends = np.array([b + r.size for b, r in zip(self.bases, self.buffers)], np.uint64)
        return base

    def buffer(self, address):
        return self.buffers[self.bases.index(address)]

    def _locate(self, addrs, nbytes, active, what):
        """(buffer index per lane, offsets) of the active lanes' accesses; MemoryFault if one is outside."""
        addrs = np.asarray(addrs, np.uint64)
        if addrs.shape != active.shape:
            addrs = np.broadcast_to(addrs, active.shape)
        idx = np.searchsorted(self._starts, addrs, side="right").astype(np.int64) - 1
        inside = idx >= 0
        inside[inside] = addrs[inside] + np.uint64(nbytes) <= self._ends[idx[inside]]
        bad = np.flatnonzero(active & ~inside)
        if bad.size:
            lane = int(bad[0])
            raise MemoryFault(
                f"{what}: lane {lane} accesses {nbytes} bytes at 0x{int(addrs[lane]):x}, outside every buffer"
            )
        return idx, addrs

    def _one_buffer(self, addrs, nbytes, active):
        """(buffer, int64 offsets of every lane) when the active lanes' accesses all lie in one
        buffer (what nearly every access is), else None: one range check instead of a lookup per lane."""
        addrs = np.asarray(addrs, np.uint64)
        if addrs.shape != active.shape:
            addrs = np.broadcast_to(addrs, active.shape)
        live = addrs if active.all() else addrs[active]
        lo, hi = int(live.min()), int(live.max())
        b = int(np.searchsorted(self._starts, np.uint64(lo), side="right")) - 1
        if b < 0 or hi + nbytes > int(self._ends[b]):
            return None
        return self.buffers[b], addrs.astype(np.int64) - self.bases[b]

    def read(self, addrs, nbytes, active, what):
        """(lanes, nbytes) uint8 at each active lane's address; zeros in inactive lanes."""
        if not active.any():
            return np.zeros((active.size, nbytes), np.uint8)
        one = self._one_buffer(addrs, nbytes, active)
        if one is not None:
            buf, off = one
            if active.all():
                return buf[off[:, None] + _SPANS[nbytes]]
            out = np.zeros((active.size, nbytes), np.uint8)
            out[active] = buf[off[active][:, None] + _SPANS[nbytes]]
            return out
        out = np.zeros((active.size, nbytes), np.uint8)
        idx, addrs = self._locate(addrs, nbytes, active, what)
        span = np.arange(nbytes, dtype=np.int64)
        for b in np.unique(idx[active]):
            lanes = active & (idx == b)
            off = (addrs[lanes] - np.uint64(self.bases[b])).astype(np.int64)
            out[lanes] = self.buffers[b][off[:, None] + span]
        return out

    def write(self, addrs, data, active, what):
        """Store data[lane] (nbytes each) at each active lane's address, lanes in order."""
        if not active.any():
            return
        nbytes = data.shape[1]
        one = self._one_buffer(addrs, nbytes, active)
        if one is not None:
            buf, off = one
            if active.all():
                buf[off[:, None] + _SPANS[nbytes]] = data
            else:
                buf[off[active][:, None] + _SPANS[nbytes]] = data[active]
            return
        idx, addrs = self._locate(addrs, nbytes, active, what)
        span = np.arange(nbytes, dtype=np.int64)
        for b in np.unique(idx[active]):
            lanes = active & (idx == b)
            off = (addrs[lanes] - np.uint64(self.bases[b])).astype(np.int64)
            self.buffers[b][off[:, None] + span] = data[lanes]

    def read_scalar(self, address, nbytes, what):
        one = np.ones(1, bool)
        return self.read(np.array([address], np.uint64), nbytes, one, what)[0]


# hsa_kernel_dispatch_packet_t: field -> (offset, struct format).
DISPATCH_PACKET = {
    "header": (0, "<H"),
    "setup": (2, "<H"),
    "workgroup_size_x": (4, "<H"),
    "workgroup_size_y": (6, "<H"),
    "workgroup_size_z": (8, "<H"),
    "grid_size_x": (12, "<I"),
    "grid_size_y": (16, "<I"),
    "grid_size_z": (20, "<I"),
    "private_segment_size": (24, "<I"),
    "group_segment_size": (28, "<I"),
    "kernel_object": (32, "<Q"),
    "kernarg_address": (40, "<Q"),
    "completion_signal": (56, "<Q"),
}
DISPATCH_PACKET_BYTES = 64
