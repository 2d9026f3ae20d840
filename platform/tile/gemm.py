"""A block-level GEMM: main loop (matrix cores or FMA) and epilogue.

A workgroup computes a block_m x block_n tile of C = A[MxK] @ B[KxN]
(A and B each row- or column-major, leading dimensions in elements). With a
matrix op it has waves_m x waves_n waves, each owning (block_m / waves_m) x (block_n / waves_n)
of the tile; per k step the workgroup copies an A and a B tile into LDS,
and each wave loads its fragments and issues one mma per m x n sub-tile.
Without one (op=None), every lane computes one output with FMAs.
"""

import dataclasses

from ir import mma as M
from ir import types as T
from tile.copy import copy_to_lds, copy_to_lds_transposed
from tile.fragments import FRAGMENTS

ACTIVATIONS = ("none", "relu")
LAYOUTS = ("row", "col")
# Operand layout -> how its tile is copied to LDS (which is row-major either way).
_COPIES = {"row": copy_to_lds, "col": copy_to_lds_transposed}


@dataclasses.dataclass(frozen=True)
class GemmConfig:
    op: object  # matrix op id, or None for the FMA fallback
    block_m: int
    block_n: int
    block_k: int
    waves_m: int = 1
    waves_n: int = 1
    vec: int = 4  # elements per global->LDS access

    def threads(self, wave):
        return self.waves_m * self.waves_n * wave if self.op else self.block_m * self.block_n

    def check(self, family):
        """Raise ValueError unless the tile divides into the op's shape on `family`."""
        if self.op is None:
            return
        if (self.op, family) not in FRAGMENTS:
            raise ValueError(f"GemmConfig: expected an op with a fragment layout on {family}, got {self.op}")
        s = M.shape(self.op)
        for name, size, part in (("block_m", self.block_m, self.waves_m * s.m), ("block_n", self.block_n, self.waves_n * s.n), ("block_k", self.block_k, s.k)):
            if size % part:
                raise ValueError(f"GemmConfig: expected {name} to be a multiple of {part}, got {size}")


@dataclasses.dataclass
class Operands:
    """Where the problem lives: pointers, sizes (i32 values), leading dims,
    and each operand's layout: "row" (row-major, the default) or "col".

    A row-major operand's leading dim is its row pitch, a column-major one's
    its column pitch (a_layout "col": A[i, k] is a[k * lda + i]; b_layout
    "col": B[k, j] is b[j * ldb + k]).
    """

    a: object
    b: object
    m: object
    n: object
    k: object
    lda: object
    ldb: object
    a_layout: str = "row"
    b_layout: str = "row"

    def __post_init__(self):
        for name in ("a_layout", "b_layout"):
            if getattr(self, name) not in LAYOUTS:
                raise ValueError(f"Operands: expected {name} in {LAYOUTS}, got {getattr(self, name)!r}")


def mainloop(b, cfg, ops, elem, row0, col0):
    """Accumulators (f32 fragments, one per m x n sub-tile of this wave) for the block at (row0, col0)."""
    cfg.check(b.arch.family)
    s = M.shape(cfg.op)
    frag = FRAGMENTS[(cfg.op, b.arch.family)]
    a_t, b_t, c_t = M.fragment_types(cfg.op, b.arch.family)
    wave = b.wave_size
    tid = b.thread_id(0)
    lane = b.lane_id()
    w = b.div(tid, wave)
    wave_row, wave_col = b.mul(b.div(w, cfg.waves_n), cfg.block_m // cfg.waves_m), b.mul(b.rem(w, cfg.waves_n), cfg.block_n // cfg.waves_n)
    tiles_m, tiles_n = cfg.block_m // cfg.waves_m // s.m, cfg.block_n // cfg.waves_n // s.n
    lds_a = b.lds_alloc(cfg.block_m * cfg.block_k * elem.nbytes)
    lds_b = b.lds_alloc(cfg.block_k * cfg.block_n * elem.nbytes)
    zero = b.build([b.const(0.0, T.F32)] * c_t.n)
    threads = cfg.threads(wave)
    lane_row, lane_k = frag.origin(b, lane)
    with b.for_range(0, ops.k, cfg.block_k, [zero] * (tiles_m * tiles_n)) as loop:
        k0 = loop.iv
        b.barrier()  # the previous step's fragment loads are done with LDS
        _COPIES[ops.a_layout](b, ops.a, ops.lda, ops.m, ops.k, row0, k0, lds_a, cfg.block_m, cfg.block_k, elem, cfg.vec, tid, threads)
        _COPIES[ops.b_layout](b, ops.b, ops.ldb, ops.k, ops.n, k0, col0, lds_b, cfg.block_k, cfg.block_n, elem, cfg.vec, tid, threads)
        b.barrier()
        acc = list(loop.iters)
        for kk in b.unroll(cfg.block_k // s.k):
            k = b.add(lane_k, kk * s.k)
            a_frags = []
            for mt in b.unroll(tiles_m):
                row = b.add(b.add(wave_row, mt * s.m), lane_row)
                a_frags.append(b.load_wide(b.offset(lds_a, b.mul(b.add(b.mul(row, cfg.block_k), k), elem.nbytes)), a_t))
            for nt in b.unroll(tiles_n):
                col = b.add(b.add(wave_col, nt * s.n), lane_row)
                parts = [b.load(b.offset(lds_b, b.mul(b.add(b.mul(b.add(k, v), cfg.block_n), col), elem.nbytes)), elem) for v in range(b_t.n)]
                b_frag = b.build(parts)
                for mt in b.unroll(tiles_m):
                    i = mt * tiles_n + nt
                    acc[i] = b.mma(cfg.op, a_frags[mt], b_frag, acc[i])
        b.yield_(*acc)
    return _Accumulators(loop.results, wave_row, wave_col, tiles_n, s, frag, lane)


@dataclasses.dataclass
class _Accumulators:
    frags: list
    wave_row: object
    wave_col: object
    tiles_n: int
    shape: object
    frag: object
    lane: object

    def elements(self, b):
        """(row, col, f32 value) of every accumulator element this lane holds, within the block."""
        for i, acc in enumerate(self.frags):
            mt, nt = divmod(i, self.tiles_n)
            for v in range(acc.type.n):
                r, c = self.frag.c(b, self.lane, v)
                yield b.add(b.add(self.wave_row, mt * self.shape.m), r), b.add(b.add(self.wave_col, nt * self.shape.n), c), b.extract(acc, v)


def fma_mainloop(b, cfg, ops, elem, row0, col0):
    """Fallback without matrix cores: lane (r, c) of the block accumulates one output."""
    tid = b.thread_id(0)
    r, c = b.div(tid, cfg.block_n), b.rem(tid, cfg.block_n)
    gr, gc = b.add(row0, r), b.add(col0, c)
    inside = b.and_(b.cmp("lt", gr, ops.m), b.cmp("lt", gc, ops.n))
    br = b.if_(inside, [T.F32])
    with br.then_():
        with b.for_range(0, ops.k, 1, [b.const(0.0, T.F32)]) as loop:
            x = b.load(b.offset(ops.a, b.mul(b.add(b.mul(gr, ops.lda), loop.iv), elem.nbytes)), elem)
            y = b.load(b.offset(ops.b, b.mul(b.add(b.mul(loop.iv, ops.ldb), gc), elem.nbytes)), elem)
            b.yield_(b.fma(b.convert(x, T.F32), b.convert(y, T.F32), loop.iters[0]))
        b.yield_(loop.results[0])
    with br.else_():
        b.yield_(b.const(0.0, T.F32))
    return [(r, c, br.results[0])]


def epilogue(b, elements, out, ldc, m, n, row0, col0, out_elem, bias=None, activation="none", atomic=False):
    """Store (or atomically add) every (row, col, f32 value) inside the m x n output.

    Converts to `out_elem`, adds bias[col] (f32) and applies the activation
    first. atomic=True accumulates into f32 output (split-K).
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"epilogue: expected an activation in {ACTIVATIONS}, got {activation!r}")
    if atomic and out_elem is not T.F32:
        raise ValueError(f"epilogue: expected f32 output for atomic accumulation, got {out_elem}")
    for r, c, value in elements:
        gr, gc = b.add(row0, r), b.add(col0, c)
        with b.if_(b.and_(b.cmp("lt", gr, m), b.cmp("lt", gc, n))):
            if bias is not None:
                value = b.add(value, b.load(b.offset(bias, b.mul(gc, 4)), T.F32))
            if activation == "relu":
                value = b.max(value, 0.0)
            ptr = b.offset(out, b.mul(b.add(b.mul(gr, ldc), gc), out_elem.nbytes))
            if atomic:
                b.atomic_add(ptr, value)
            else:
                b.store(ptr, b.convert(value, out_elem))
