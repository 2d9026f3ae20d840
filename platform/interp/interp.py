"""A numpy reference interpreter of the IR: proves kernels compute the right
numbers without a GPU.

    run(kernel, grid=(gx, gy, gz), args=[a, b, c, n])

Pointer arguments are C-contiguous numpy arrays, written in place; scalar
arguments are Python or numpy numbers.

Model: every lane of every workgroup in a chunk runs each op in lockstep
(one numpy operation over all lanes). That is one legal interleaving of a
race-free kernel, so barriers hold trivially; a barrier reached by only some
lanes of a workgroup is an error. Divergent control flow runs under a mask:
an inactive lane computes nothing visible (no stores, no atomics, no faults).
LDS is one array per allocation per workgroup. Buffer loads outside the
resource's byte count give 0 and such stores are dropped, as on the hardware.
"""

import functools

import numpy as np

from arch import arch as archs
from arch.lds_ops import LDS_OPS
from interp import numerics as N
from interp.layouts import LAYOUTS
from ir import mma as M
from ir import types as T
from ir.core import walk
from ir.verifier import verify

_OFFSET_BITS = 40
_OFFSET_MASK = (1 << _OFFSET_BITS) - 1
_LDS_FILL = 0xCD  # LDS starts as garbage, so reading unwritten LDS shows up


class InterpError(RuntimeError):
    """The kernel did something undefined (an out-of-bounds access, a divergent
    barrier...) or the interpreter failed: the only error run() raises after
    verification. Messages name the op and the lane."""


class _Chunk:
    """Runs a kernel over a batch of workgroups."""

    def __init__(self, kernel, arch, grid, blocks, globals_):
        self.kernel = kernel
        self.arch = arch
        self.grid = grid
        wg = kernel.attrs["workgroup_size"]
        per = wg[0] * wg[1] * wg[2]
        self.lanes = len(blocks) * per
        linear = np.arange(self.lanes) % per
        self.wg_index = np.arange(self.lanes) // per
        self.tid = (linear % wg[0], (linear // wg[0]) % wg[1], linear // (wg[0] * wg[1]))
        self.bid = tuple(np.repeat(np.asarray(blocks)[:, d], per) for d in range(3))
        self.wave = kernel.attrs["wave_size"]
        self.lane_in_wave = linear % self.wave
        self.wave_of_lane = (
            np.arange(self.lanes) // self.wave
        )  # waves never straddle workgroups: per % wave == 0 checked in run()
        self.buffers = globals_
        self.lds = {}
        # direct-to-LDS writes (mem.load_to_lds, buffer.load_to_lds) in flight: [(buffer id, LDS byte indices
        # per lane, bytes, lanes)], landed by the next barrier; `pending`
        # marks their bytes per allocation, which nothing may touch before.
        self.in_flight = []
        self.pending = {}
        self.env = {}
        self.ops = 0

    def lane(self, index):
        """Where lane `index` of this chunk is: its thread and workgroup ids."""
        tid = tuple(int(t[index]) for t in self.tid)
        bid = tuple(int(b[index]) for b in self.bid)
        return f"lane {int(self.lane_in_wave[index])} of its wave, thread {tid} of workgroup {bid}"

    # -- memory ---------------------------------------------------------------

    def split(self, ptr):
        return ptr >> _OFFSET_BITS, ptr & _OFFSET_MASK

    def _storage(self, buf_id, op, lane):
        if buf_id in self.lds:
            return self.lds[buf_id], True
        if 0 <= buf_id < len(self.buffers):
            return self.buffers[buf_id], False
        raise InterpError(
            f"{op.name}: expected a pointer into an argument or LDS, got buffer id {buf_id} in {self.lane(lane)}"
        )

    def _indices(self, op, data, off, nbytes, lanes):
        idx = off[:, None] + np.arange(nbytes)
        size = data.shape[-1]
        outside = idx.max(axis=1) >= size if idx.size else np.zeros(0, bool)
        if outside.any():
            first = np.flatnonzero(outside)[0]
            raise InterpError(
                f"{op.name}: expected an access within {size} bytes, got {nbytes} bytes at offset {int(off[first])} in {self.lane(lanes[first])}"
            )
        return idx

    def gather(self, op, ptr, nbytes, mask):
        out = np.zeros((self.lanes, nbytes), np.uint8)
        buf, off = self.split(ptr)
        for b in np.unique(buf[mask]):
            sel = mask & (buf == b)
            data, is_lds = self._storage(int(b), op, np.flatnonzero(sel)[0])
            idx = self._indices(op, data, off[sel], nbytes, np.flatnonzero(sel))
            if is_lds:
                self._not_in_flight(op, int(b), sel, idx)
            out[sel] = data[self.wg_index[sel][:, None], idx] if is_lds else data[idx]
        return out

    def scatter(self, op, ptr, raw, mask):
        buf, off = self.split(ptr)
        for b in np.unique(buf[mask]):
            sel = mask & (buf == b)
            data, is_lds = self._storage(int(b), op, np.flatnonzero(sel)[0])
            idx = self._indices(op, data, off[sel], raw.shape[1], np.flatnonzero(sel))
            if is_lds:
                self._not_in_flight(op, int(b), sel, idx)
                data[self.wg_index[sel][:, None], idx] = raw[sel]
            else:
                data[idx] = raw[sel]

    def _not_in_flight(self, op, buf_id, sel, idx):
        """InterpError if a lane touches LDS bytes a direct-to-LDS load has yet to write."""
        if buf_id not in self.pending:
            return
        hit = self.pending[buf_id][self.wg_index[sel][:, None], idx].any(axis=1)
        if hit.any():
            lane = np.flatnonzero(sel)[np.flatnonzero(hit)[0]]
            raise InterpError(
                f"{op.name}: expected no access to LDS bytes a direct-to-LDS load has yet to write, got one in {self.lane(lane)}; a barrier must come between the load and any access to what it writes"
            )

    def send(self, op, dst, raw, mask):
        """Start direct-to-LDS writes of `raw` at LDS pointers `dst` (per lane): they land at the next barrier."""
        buf, off = self.split(dst)
        for b in np.unique(buf[mask]):
            sel = mask & (buf == b)
            data, is_lds = self._storage(int(b), op, np.flatnonzero(sel)[0])
            idx = self._indices(op, data, off[sel], raw.shape[1], np.flatnonzero(sel))
            self._not_in_flight(op, int(b), sel, idx)
            marks = self.pending.setdefault(int(b), np.zeros(data.shape, bool))
            marks[self.wg_index[sel][:, None], idx] = True
            self.in_flight.append((int(b), idx, raw[sel], self.wg_index[sel]))

    def land(self, workgroups):
        """The in-flight direct-to-LDS writes of these workgroups (a bool per workgroup) land in LDS."""
        kept = []
        for buf_id, idx, raw, wgs in self.in_flight:
            here = workgroups[wgs]
            self.lds[buf_id][wgs[here][:, None], idx[here]] = raw[here]
            self.pending[buf_id][wgs[here][:, None], idx[here]] = False
            if not here.all():
                kept.append((buf_id, idx[~here], raw[~here], wgs[~here]))
        self.in_flight = kept

    # -- execution ------------------------------------------------------------

    def block(self, block, mask):
        for op in block.ops:
            if op.name == "scf.yield":
                return [self.env[v] for v in op.operands]
            self.ops += int(mask.sum())
            try:
                results = EXEC[op.name](self, op, mask)
            except InterpError:
                raise
            except Exception as e:  # a stray numpy/Python error is still an InterpError
                raise InterpError(
                    f"{op.name} ({self.where(op)}): expected to run, got {type(e).__name__}: {e}; {self.first_active(mask)}"
                ) from e
            for value, array in zip(op.results, results):
                self.env[value] = array
        return []

    def v(self, value):
        return self.env[value]

    def where(self, op):
        index = next(i for i, o in enumerate(walk(self.kernel.body)) if o is op)
        return f"op {index} in program order of kernel @{self.kernel.name}"

    def first_active(self, mask):
        # Lanes run in lockstep, so an error belongs to no single lane: name the first.
        active = np.flatnonzero(mask)
        return f"{active.size} lanes active, the first {self.lane(active[0])}" if active.size else "no lane active"


def _as_raw(x, t):
    """Values of type t as (lanes, nbytes) uint8."""
    if T.element(t) is T.BF16:
        arr = (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    else:
        arr = np.asarray(x).astype(N.dtype(t), copy=False)
    arr = np.ascontiguousarray(arr)
    return arr.view(np.uint8).reshape(arr.shape[0], t.nbytes)


def _from_raw(raw, t):
    if T.element(t) is T.BF16:
        vals = (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    else:
        vals = raw.view(N.dtype(t))
    return vals.reshape(raw.shape[0]) if not isinstance(t, T.VectorType) else vals.reshape(raw.shape[0], t.n)


# -- arithmetic -------------------------------------------------------------------


def _round(x, t):
    return N.round_bf16(x) if T.element(t) is T.BF16 else x.astype(N.dtype(t))


def _int_div(a, b):
    b = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) ^ (b < 0), -q, q).astype(a.dtype)


def _unsigned(fn):
    """fn on the operands' bits read as unsigned integers of their width (a zero divisor reads as 1, as in _int_div)."""

    def run(a, b):
        signed, u = a.dtype, np.dtype(f"u{a.dtype.itemsize}")
        bu = b.view(u)
        return fn(a.view(u), np.where(bu == 0, 1, bu).astype(u)).view(signed)

    return run


def _arith(int_fn, float_fn):
    def run(c, op, mask):
        t = op.results[0].type
        a, b = c.v(op.operands[0]), c.v(op.operands[1])
        with np.errstate(all="ignore"):
            if t.is_float:
                return [_round(float_fn(a.astype(np.float32), b.astype(np.float32)), t)]
            return [int_fn(a, b).astype(N.dtype(t))]

    return run


def _shift(fn):
    def run(c, op, mask):
        t = op.results[0].type
        a, b = c.v(op.operands[0]), c.v(op.operands[1])
        bits = T.element(t).bits
        return [fn(a, np.where((b >= 0) & (b < bits), b, 0).astype(a.dtype)).astype(a.dtype)]

    return run


_CMP = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def _cmp(c, op, mask):
    a, b = (c.v(v) for v in op.operands)
    return [_CMP[op.attrs["pred"]](a, b)]


def _select(c, op, mask):
    cond, a, b = (c.v(v) for v in op.operands)
    if a.ndim == 2:
        cond = cond[:, None]
    return [np.where(cond, a, b)]


def _convert(c, op, mask):
    src, dst = op.operands[0].type, op.results[0].type
    x = c.v(op.operands[0])
    s, d = T.element(src), T.element(dst)
    with np.errstate(all="ignore"):
        if s.is_int and d.is_int:
            return [x.astype(np.int64).astype(N.dtype(dst)) if d is not T.I1 else (x & 1).astype(bool)]
        if s.is_float and d.is_int:
            f = N.to_float(x, src)
            return [np.trunc(np.nan_to_num(f)).astype(np.int64).astype(N.dtype(dst))]
        return [N.from_float(N.to_float(x, src), dst)]


def _bitcast(c, op, mask):
    src, dst = op.operands[0].type, op.results[0].type
    return [_from_raw(_as_raw(c.v(op.operands[0]), src), dst)]


def _unary(fn):
    def run(c, op, mask):
        t = op.results[0].type
        with np.errstate(all="ignore"):
            return [_round(fn(c.v(op.operands[0]).astype(np.float32)), t)]

    return run


def _exp2(x):
    """2^x as v_exp_f32 computes it: results below f32's least normal (2^-126) flush to +0 (an f16
    result is that small only below f16's least subnormal, where it rounds to 0 anyway)."""
    r = np.exp2(x)
    return np.where(r < np.float32(2.0**-126), np.float32(0), r)


def _neg(c, op, mask):
    x = c.v(op.operands[0])
    if x.dtype == np.bool_:  # i1: 0 - x wraps to x
        return [x.copy()]
    return [(-x).astype(x.dtype)]


def _fma(c, op, mask):
    t = op.results[0].type
    a, b, d = (c.v(v).astype(np.float64) for v in op.operands)
    return [_round(a * b + d, t)]


# -- vectors -------------------------------------------------------------------------


def _build(c, op, mask):
    return [np.stack([c.v(v) for v in op.operands], axis=1)]


def _extract(c, op, mask):
    return [c.v(op.operands[0])[:, op.attrs["index"]].copy()]


def _insert(c, op, mask):
    out = c.v(op.operands[0]).copy()
    out[:, op.attrs["index"]] = c.v(op.operands[1])
    return [out]


def _shuffle(c, op, mask):
    both = np.concatenate([c.v(op.operands[0]), c.v(op.operands[1])], axis=1)
    return [both[:, op.attrs["mask"]]]


# -- GPU ------------------------------------------------------------------------------


def _thread_id(c, op, mask):
    return [c.tid[op.attrs["dim"]].astype(np.int32)]


def _block_id(c, op, mask):
    return [c.bid[op.attrs["dim"]].astype(np.int32)]


def _block_dim(c, op, mask):
    return [np.full(c.lanes, c.kernel.attrs["workgroup_size"][op.attrs["dim"]], np.int32)]


def _grid_dim(c, op, mask):
    return [np.full(c.lanes, c.grid[op.attrs["dim"]], np.int32)]


def _lane_id(c, op, mask):
    return [c.lane_in_wave.astype(np.int32)]


def _barrier(c, op, mask):
    per_wg = np.bincount(c.wg_index, weights=mask, minlength=c.wg_index.max() + 1)
    size = c.lanes // (c.wg_index.max() + 1)
    divergent = np.flatnonzero((per_wg > 0) & (per_wg < size))
    if divergent.size:
        missing = np.flatnonzero(~mask & (c.wg_index == divergent[0]))[0]
        raise InterpError(
            f"{op.name}: expected every lane of a workgroup to reach the barrier, got a divergent barrier: {int(per_wg[divergent[0]])} of {size} lanes arrive; missing: {c.lane(missing)}"
        )
    if c.in_flight:
        c.land(per_wg > 0)
    return []


def _sched_barrier(c, op, mask):
    return []  # a hint to LLVM's scheduler: nothing to compute


def _readfirstlane(c, op, mask):
    x = c.v(op.operands[0])
    out = x.copy()
    for w in np.unique(c.wave_of_lane):
        lanes = np.flatnonzero((c.wave_of_lane == w) & mask)
        if lanes.size:
            out[c.wave_of_lane == w] = x[lanes[0]]
    return [out]


def _bpermute(c, op, mask):
    addr, x = c.v(op.operands[0]), c.v(op.operands[1])
    src_lane = (addr // 4) % c.wave
    base = c.wave_of_lane * c.wave
    return [x[base + src_lane]]


# -- memory ----------------------------------------------------------------------------


def _lds_alloc(c, op, mask):
    buf_id = (1 << 20) + len(c.lds)
    c.lds[buf_id] = np.full((c.wg_index.max() + 1, op.attrs["bytes"]), _LDS_FILL, np.uint8)
    return [np.full(c.lanes, buf_id << _OFFSET_BITS, np.int64)]


def _offset(c, op, mask):
    return [c.v(op.operands[0]) + c.v(op.operands[1]).astype(np.int64)]


def _load(c, op, mask):
    t = op.results[0].type
    return [_from_raw(c.gather(op, c.v(op.operands[0]), t.nbytes, mask), t)]


def _store(c, op, mask):
    t = op.operands[1].type
    c.scatter(op, c.v(op.operands[0]), _as_raw(c.v(op.operands[1]), t), mask)
    return []


# ds_read_b64_tr_b16 exchanges data within groups of this many lanes of a wave.
_TRANSPOSE_GROUP = LDS_OPS["mem.load_transpose"].group


def _whole_groups(c, op, mask, size):
    """Lanes exchange data in groups of `size` lanes of a wave: all or none active."""
    start = np.arange(c.lanes) - c.lane_in_wave % size
    active = np.bincount(start, weights=mask, minlength=c.lanes)
    partial = np.flatnonzero((active > 0) & (active < size))
    if partial.size:
        raise InterpError(
            f"{op.name}: expected all or none of each group of {size} lanes active (they exchange data), got {int(active[partial[0]])} of {size} active, from {c.lane(partial[0])}"
        )
    return start


def _load_transpose(c, op, mask):
    # Lane i of a 16-lane group gets element i % 4 of the 8 bytes lanes
    # 4j + i // 4 of its group named, j = 0..3 (builder.load_transpose).
    t = op.results[0].type
    start = _whole_groups(c, op, mask, _TRANSPOSE_GROUP)
    raw = c.gather(op, c.v(op.operands[0]), t.nbytes, mask).view(np.uint16)
    i = c.lane_in_wave % _TRANSPOSE_GROUP
    out = np.stack([raw[start + 4 * j + i // 4, i % 4] for j in range(t.n)], axis=1)
    return [_from_raw(np.ascontiguousarray(out).view(np.uint8), t)]


def _load_to_lds(c, op, mask):
    src, dst = (c.v(v) for v in op.operands)
    _wave_uniform(c, op, mask, dst, "the LDS destination")
    # Asynchronous, as on the hardware: the bytes land at the next barrier
    # (the lowering's barrier waits for them), and any access to them
    # before is an error (Chunk.send).
    c.send(op, dst + 16 * c.lane_in_wave.astype(np.int64), c.gather(op, src, 16, mask), mask)
    return []


def _buffer_load_to_lds(c, op, mask):
    rsrc, voffset, soffset, dst = (c.v(v) for v in op.operands)
    _wave_uniform(c, op, mask, soffset, "the wave offset")
    _wave_uniform(c, op, mask, dst, "the LDS destination")
    off = voffset.astype(np.int64) + soffset
    ok = mask & _in_bounds(rsrc, off, 16)  # bytes past the buffer read as zero, as buffer.load's
    c.send(op, dst + 16 * c.lane_in_wave.astype(np.int64), c.gather(op, rsrc[:, 0] + off, 16, ok), mask)
    return []


def _wave_uniform(c, op, mask, x, what):
    """InterpError unless `x` is the same in every lane of each wave (the hardware reads one lane's)."""
    for w in np.unique(c.wave_of_lane[mask]):
        lanes = np.flatnonzero((c.wave_of_lane == w) & mask)
        if np.unique(x[lanes]).size > 1:
            other = lanes[np.flatnonzero(x[lanes] != x[lanes[0]])[0]]
            raise InterpError(
                f"{op.name}: expected {what} the same in every lane of a wave, got two in the wave of {c.lane(lanes[0])} and {c.lane(other)}"
            )


def _atomic_add(c, op, mask):
    t = op.results[0].type
    ptr, x = c.v(op.operands[0]), c.v(op.operands[1])
    old = np.zeros(c.lanes, N.dtype(t))
    for lane in np.flatnonzero(mask):  # lane order: a deterministic serialisation
        one = np.zeros(c.lanes, bool)
        one[lane] = True
        cur = _from_raw(c.gather(op, ptr, 4, one), t)
        old[lane] = cur[lane]
        new = np.zeros(c.lanes, N.dtype(t))
        new[lane] = cur[lane] + x[lane]
        c.scatter(op, ptr, _as_raw(new, t), one)
    return [old]


def _rsrc(c, op, mask):
    # The byte count is the descriptor's unsigned 32-bit field (the lowering
    # zero-extends it where the intrinsic takes i64): a negative i32 count is
    # a huge buffer, not an empty one.
    return [np.stack([c.v(op.operands[0]), c.v(op.operands[1]).astype(np.int64) & 0xFFFFFFFF], axis=1)]


def _in_bounds(rsrc, off, nbytes, at=0):
    """Whether bytes at .. at + nbytes of offset `off` (an i32, negative:
    past any buffer) lie inside the buffer."""
    return (off >= 0) & (off.astype(np.int64) + at + nbytes <= rsrc[:, 1])


def _checked_parts(nbytes):
    """(byte offset, bytes) of each separately range-checked part of a buffer
    access: every dword of one of whole dwords, as the hardware (and
    platform/emu's vmem) checks them; else the whole access."""
    return [(at, 4) for at in range(0, nbytes, 4)] if nbytes % 4 == 0 else [(0, nbytes)]


def _buffer_load(c, op, mask):
    """A dword past the buffer reads zero, the dwords before it their bytes."""
    t = op.results[0].type
    rsrc, off = c.v(op.operands[0]), c.v(op.operands[1])
    raw = np.zeros((c.lanes, t.nbytes), np.uint8)
    for at, n in _checked_parts(t.nbytes):
        ok = mask & _in_bounds(rsrc, off, n, at)
        raw[:, at : at + n] = c.gather(op, rsrc[:, 0] + off.astype(np.int64) + at, n, ok)
    return [_from_raw(raw, t)]


def _buffer_store(c, op, mask):
    t = op.operands[2].type
    rsrc, off, x = (c.v(v) for v in op.operands)
    ok = mask & _in_bounds(rsrc, off, t.nbytes)
    c.scatter(op, rsrc[:, 0] + off.astype(np.int64), _as_raw(x, t), ok)
    return []


@functools.lru_cache(maxsize=None)
def _positions(layout, part, wave, n):
    """(rows, cols), each (wave, n): where element v of lane l of `part` (a, b or c) sits."""
    where = getattr(layout, part)
    rc = np.array([[where(l, v) for v in range(n)] for l in range(wave)], np.int64)
    return rc[..., 0], rc[..., 1]


def _agree(x, y):
    return (x == y) | (np.isnan(x) & np.isnan(y))


def _matrix(where, op_id, generation, name, values, shape):
    """The matrix whose element (rows[l, v], cols[l, v]) is values[l, v].

    Where the layout gives several lanes the same element (gfx11 WMMA reads
    A and B from lanes i and i+16 alike), the hardware needs them to agree.
    """
    rows, cols = where
    m = np.zeros(shape)
    m[rows, cols] = values
    bad = ~_agree(m[rows, cols], values)
    if bad.any():
        l, v = np.argwhere(bad)[0]
        holders = np.argwhere((rows == rows[l, v]) & (cols == cols[l, v]))  # in lane order
        first = holders[0]
        other = next(h for h in holders if not _agree(values[tuple(h)], values[tuple(first)]))
        raise InterpError(
            f"matrix.mma {op_id} on {generation}: lanes {first[0]} and {other[0]} hold {name}[{rows[l, v]}][{cols[l, v]}] "
            f"and must agree, got {values[tuple(first)]} and {values[tuple(other)]}; load the same fragment into both lanes"
        )
    return m


def _mma(c, op, mask):
    op_id = op.attrs["op"]
    generation = c.arch.generation
    layout = LAYOUTS[(op_id, generation)]
    shape = M.shape(op_id)
    a, b, acc = (c.v(v) for v in op.operands)
    a_t = op.operands[0].type
    fa, fb = N.to_float(a, a_t), N.to_float(b, a_t)
    where_a = _positions(layout, "a", c.wave, fa.shape[1])
    where_b = _positions(layout, "b", c.wave, fb.shape[1])
    where_c = _positions(layout, "c", c.wave, acc.shape[1])
    out = np.zeros(acc.shape, np.float32)
    for w in np.unique(c.wave_of_lane):
        lanes = np.flatnonzero(c.wave_of_lane == w)
        if not mask[lanes].any():  # a wave that does not run this op (another workgroup's loop bound)
            continue
        if not mask[lanes].all():
            raise InterpError(f"matrix.mma: expected all {c.wave} lanes of a wave active, got {int(mask[lanes].sum())}")
        A = _matrix(where_a, op_id, generation, "A", fa[lanes], (shape.m, shape.k))
        B = _matrix(where_b, op_id, generation, "B", fb[lanes], (shape.k, shape.n))
        C = _matrix(where_c, op_id, generation, "C", acc[lanes], (shape.m, shape.n))
        D = (A @ B + C).astype(np.float32)
        out[lanes] = D[where_c]
    return [out]


# -- control flow ------------------------------------------------------------------------


def _merge(cond, new, old):
    return np.where(cond[:, None] if new.ndim == 2 else cond, new, old)


def _for(c, op, mask):
    lo, hi, step, *inits = (c.v(v) for v in op.operands)
    body = op.regions[0]
    iv, iters = lo.copy(), [x.copy() for x in inits]
    stuck = np.flatnonzero(mask & (lo < hi) & (step <= 0))
    if stuck.size:  # the GPU would spin (or run until i32 wraps)
        raise InterpError(
            f"scf.for: expected a positive step when lo < hi, got step {int(step[stuck[0]])} in {c.lane(stuck[0])}"
        )
    while True:
        live = mask & (iv < hi)
        if not live.any():
            return iters
        c.env[body.args[0]] = iv
        for arg, x in zip(body.args[1:], iters):
            c.env[arg] = x
        yielded = c.block(body, live)
        iters = [_merge(live, y, x) for y, x in zip(yielded, iters)]
        iv = np.where(live, iv + step, iv)


def _if(c, op, mask):
    cond = c.v(op.operands[0])
    then = c.block(op.regions[0], mask & cond)
    else_ = c.block(op.regions[1], mask & ~cond)
    return [_merge(cond, t, e) for t, e in zip(then, else_)]


def _const(c, op, mask):
    t = op.results[0].type
    value = op.attrs["value"]
    return [_round(np.full(c.lanes, value), t) if t.is_float else np.full(c.lanes, value, N.dtype(t))]


EXEC = {
    "arith.const": _const,
    "arith.add": _arith(np.add, np.add),
    "arith.sub": _arith(np.subtract, np.subtract),
    "arith.mul": _arith(np.multiply, np.multiply),
    "arith.div": _arith(_int_div, np.divide),
    "arith.rem": _arith(lambda a, b: np.fmod(a, np.where(b == 0, 1, b)), np.fmod),
    "arith.udiv": _arith(_unsigned(np.floor_divide), None),
    "arith.urem": _arith(_unsigned(np.remainder), None),
    "arith.min": _arith(np.minimum, np.fmin),
    "arith.max": _arith(np.maximum, np.fmax),
    "arith.and": _arith(np.bitwise_and, None),
    "arith.or": _arith(np.bitwise_or, None),
    "arith.xor": _arith(np.bitwise_xor, None),
    "arith.shl": _shift(np.left_shift),
    "arith.shr": _shift(np.right_shift),
    "arith.neg": _neg,
    "arith.cmp": _cmp,
    "arith.select": _select,
    "arith.convert": _convert,
    "arith.bitcast": _bitcast,
    "math.exp": _unary(np.exp),
    "math.exp2": _unary(_exp2),
    "math.log": _unary(np.log),
    "math.sqrt": _unary(np.sqrt),
    "math.rsqrt": _unary(lambda x: 1 / np.sqrt(x)),
    "math.fma": _fma,
    "vector.build": _build,
    "vector.extract": _extract,
    "vector.insert": _insert,
    "vector.shuffle": _shuffle,
    "gpu.thread_id": _thread_id,
    "gpu.block_id": _block_id,
    "gpu.block_dim": _block_dim,
    "gpu.grid_dim": _grid_dim,
    "gpu.lane_id": _lane_id,
    "gpu.barrier": _barrier,
    "gpu.lds_barrier": _barrier,  # lanes run in lockstep: LDS is ordered as by gpu.barrier
    "gpu.sched_barrier": _sched_barrier,
    "lane.readfirstlane": _readfirstlane,
    "lane.bpermute": _bpermute,
    "mem.lds_alloc": _lds_alloc,
    "mem.offset": _offset,
    "mem.load": _load,
    "mem.store": _store,
    "mem.load_transpose": _load_transpose,
    "mem.load_to_lds": _load_to_lds,
    "buffer.load_to_lds": _buffer_load_to_lds,
    "mem.atomic_add": _atomic_add,
    "buffer.rsrc": _rsrc,
    "buffer.load": _buffer_load,
    "buffer.store": _buffer_store,
    "matrix.mma": _mma,
    "scf.for": _for,
    "scf.if": _if,
}


def _scalar_argument(a, value):
    """`value` if it is a value of scalar argument `a`'s type."""
    if a.type.is_int:
        lo, hi = T.int_range(a.type)
        ok = isinstance(value, (int, np.integer, np.bool_)) and lo <= int(value) <= hi
    else:
        ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok:
        raise InterpError(f"run: expected a {a.type} value for %{a.name}, got {value!r}")
    return value


def run(kernel, grid, args, max_lanes=1 << 16):
    """Run `kernel` over `grid` workgroups; pointer args (numpy arrays) are updated in place.

    Returns the number of lane-ops executed (for throughput figures).
    """
    verify(kernel)
    arch = archs.get(kernel.arch)
    if (
        not isinstance(grid, (tuple, list))
        or not 1 <= len(grid) <= 3
        or not all(isinstance(g, int) and not isinstance(g, bool) and g >= 1 for g in grid)
    ):
        raise InterpError(f"run: expected a grid of 1 to 3 positive ints (workgroups in x, y, z), got {grid!r}")
    grid = tuple(grid) + (1,) * (3 - len(grid))
    if not isinstance(args, (tuple, list)) or len(kernel.args) != len(args):
        got = len(args) if isinstance(args, (tuple, list)) else repr(args)
        raise InterpError(
            f"run: expected a list of {len(kernel.args)} arguments ({', '.join(a.name for a in kernel.args)}), got {got}"
        )
    wg = kernel.attrs["workgroup_size"]
    per = wg[0] * wg[1] * wg[2]
    if per % kernel.attrs["wave_size"]:
        raise InterpError(f"run: expected a workgroup of whole waves of {kernel.attrs['wave_size']}, got {per} lanes")
    # Each argument's value in every lane: a pointer is its buffer's index.
    buffers, bindings = [], []
    for a, value in zip(kernel.args, args):
        if isinstance(a.type, T.PtrType):
            if not isinstance(value, np.ndarray) or not value.flags.c_contiguous:
                raise InterpError(f"run: expected a C-contiguous numpy array for %{a.name}, got {type(value).__name__}")
            bindings.append((a, len(buffers)))
            buffers.append(value.reshape(-1).view(np.uint8))
        else:
            bindings.append((a, _scalar_argument(a, value)))
    blocks = [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
    step = max(1, max_lanes // per)
    lane_ops = 0
    for start in range(0, len(blocks), step):
        c = _Chunk(kernel, arch, grid, blocks[start : start + step], buffers)
        for a, value in bindings:
            if isinstance(a.type, T.PtrType):
                c.env[a] = np.full(c.lanes, value << _OFFSET_BITS, np.int64)
            else:
                c.env[a] = np.full(c.lanes, value, N.dtype(a.type))
        c.block(kernel.body, np.ones(c.lanes, bool))
        lane_ops += c.ops
    return lane_ops
