"""A block-level GEMM: main loop (matrix cores or FMA) and epilogue.

A workgroup computes a block_m x block_n tile of C = A[MxK] @ B[KxN]
(leading dimensions in elements; A and B row- or column-major). On matrix
cores (mainloop, GemmConfig: the op and its tile.Tile) it has waves_m x
waves_n waves, each owning (block_m / waves_m) x (block_n / waves_n) of the
tile. Without them (fma_mainloop, FmaConfig), every lane computes one output
with FMAs.

The matrix-core main loop:
  - Bounds: one check per block. A block wholly inside M x N runs its whole
    k tiles through the fast loop: unguarded 16-byte loads (copy.py). What
    is left (every k step of an edge block, the last partial k step of an
    inner one, every step of a block outside a gathered A's fast_from .. fast_to) runs
    through a second, guarded loop: element by element, or with
    GemmConfig(edge_units=True), chosen by a family whose problem is mostly
    edge blocks, 16-byte loads whose units outside the problem read zero
    where k (or m, n along a rows-contiguous operand) is a multiple of a
    unit (copy.TileCopy.guarded).
  - Pipelining: two stages, LDS and registers. Each iteration of the fast
    loop issues all global loads of tile k+1 into registers, multiplies
    tile k out of LDS while they fly, then writes them to LDS (the one wait):
    an order that sched_barriers pin (PREFETCH_FIRST, MATRIX_FIRST).
    On gfx950 (where both operands allow it: _direct) the loads go straight
    to LDS instead (buffer.load_to_lds, buffer_load_dwordx4 ... lds: copy.DirectCopy)
    into a second pair of LDS buffers: tile k+1 lands in one while tile k is
    read from the other, and one barrier an iteration (which waits for the
    loads) swaps them (_direct_loop). No prefetch registers, no LDS writes;
    LDS doubles (32 KiB for the 128x128x32 f16 tile, which still leaves the
    VGPRs to set the occupancy). GemmConfig(direct_lds=False) keeps the
    register path there.
  - LDS: both tiles are K-major and swizzled (lds.py); B is transposed by the
    copy, so every fragment is one 16-byte read per lane. On gfx950 a
    row-major B instead stays as it is (k-rows) and its fragments are
    transposed by the read (mem.load_transpose, ds_read_b64_tr_b16): no
    transposing writes, two 8-byte reads a fragment. Its k-rows are padded
    (lds.Padded) on the register path and XOR-swizzled (lds.RowXor) where
    direct loads fill LDS slot after slot, which leaves no gaps to pad.
  - k order: a lane reads `per_lane * merge` consecutive k at once, `merge`
    mma k steps' fragments in one read (16 bytes at most). This orders K
    differently from the hardware, alike for A and B, which leaves the sum
    unchanged (fragments.py says why that is allowed).
  - Output: the mma computes C transposed (B's fragment in the A slot), so a
    lane's consecutive accumulator elements are consecutive columns of C:
    the epilogue stores them as one vector where the block is inside. An
    edge block stores each element through a buffer store that the
    hardware drops out of range: no branch per element (epilogue says why).
"""

import dataclasses
import json
import os
import re
import struct

from arch import arch as archs
from arch.lds_ops import LDS_OPS
from errors.errors import FieldError
from ir import mma as M
from ir import types as T
from tile.copy import DirectCopy, TileCopy
from tile.fragments import FRAGMENTS
from tile.gather import GatherCopy
from tile.lds import UNIT, KMajor, Padded, RowXor
from tile.tile import Tile

ACTIVATIONS = ("none", "relu", "relu6", "gelu_tanh", "gelu_erf")
# Where a residual input (the output's shape and type) is added: before or after the activation.
RESIDUALS = ("before_activation", "after_activation")
LAYOUTS = ("row", "col")
# Operand layout -> which dimension of the copied tile is contiguous in memory.
_A_CONTIGUOUS = {"row": "k", "col": "rows"}
_B_CONTIGUOUS = {"row": "rows", "col": "k"}
# The tile's tuning facts are data, gemm.json beside this file, which the C++
# mirror (platform/tile/cpp) reads too.
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemm.json")
with open(PATH, encoding="utf-8") as _f:
    _DATA = json.load(_f)
# prefetch_first: the generations whose fast loop pins the prefetch before the
# matrix work. On gfx12 and gfx1250 LLVM otherwise schedules tile k+1's loads
# after (some of) the WMMAs, chasing occupancy, and the workgroup barrier's
# release fence then waits for every load in flight: little or no overlap
# (gfx1201: 2 vmcnt(0) per iteration). There the loop ends its loads with
# gpu.sched_barrier, and its barriers order LDS only (gpu.lds_barrier: they
# guard LDS alone): one vmcnt(0) per iteration, paid for in VGPRs
# (docs/figures/loops.md). On gfx9 the loads already come first and the
# barrier does not wait for them; there it would only cost VGPRs, so gfx9
# keeps gpu.barrier.
PREFETCH_FIRST = tuple(_DATA["prefetch_first"])
# matrix_first: the generations whose fast loop also pins its matrix work
# before the LDS writes. On gfx9 LLVM hoists the barrier and the LDS writes
# (and so their wait for the loads) above most of the MFMAs, and on gfx950
# sinks the loads below them: 1-2 of 32 MFMAs (gfx942) or 0-2 of 12
# (gfx950's conv tiles) between a load and its wait; and on gfx12 LLVM 20
# sinks the WMMAs below the LDS writes of conv_igemm_fwd's 3x3 (0 of 8). There the
# loads end with a gpu.sched_barrier, as on PREFETCH_FIRST's generations, and
# so does the matrix work: every matrix op of the k step lies between its loads
# and their wait (docs/figures/loops.md: the cover and what it costs). On gfx9
# the barriers stay gpu.barrier, which there does not wait for the loads.
MATRIX_FIRST = tuple(_DATA["matrix_first"])
# The archs whose fast loop gives every global load at least a quarter of
# the iteration's matrix ops before the wait that retires it (the ISA tests
# hold them to it: gemm_isa_test, conv's igemm ISA tests). Not gfx1250: with
# llvm22 its B tile's transposing LDS writes are prepared right after the
# loads, before the WMMAs (cover 0 of 8).
QUARTER_COVER = ("gfx942", "gfx950", "gfx1201")
# gfx950's transposed B reads (ds_read_b64_tr_b16) exchange data in groups of
# TRANSPOSE_GROUP lanes (platform/arch/lds_ops.json); the B tile's k-rows are padded by transpose_pad bytes
# (or, with direct loads, XOR-swizzled in runs of that many: lds.RowXor) so
# that a group's 4 rows (and the 4 rows of the group beside it) fall on
# distinct banks: measured by platform/isa/banks.py, zero conflicts
# (gemm_banks_test).
TRANSPOSE_GROUP = LDS_OPS["mem.load_transpose"].group
TRANSPOSE_PAD = _DATA["transpose_pad"]
# GELU's constants as decimal strings (gemm.json), which both engines parse to the same double
# and the IR holds as f32. tanh form: x * sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3), is
# x / (1 + exp2(x (k0 + k1 x^2))) with k0 = -2 sqrt(2/pi) log2(e), k1 = 0.044715 k0.
GELU_TANH = (float(_DATA["gelu_tanh"]["k0"]), float(_DATA["gelu_tanh"]["k1"]))
# erf form: 0.5 x (1 + erf(x / sqrt(2))), erf by Abramowitz and Stegun 7.1.26 (|error| <= 1.5e-7
# for every x): erf(z) = 1 - t (a1 + t (a2 + ... + t a5)) exp(-z^2), t = 1 / (1 + p z), z >= 0.
# Folded for x: p / sqrt(2), the a_i halved, and exp(-x^2 / 2) as exp2(x^2 * -log2(e) / 2).
GELU_ERF_P = float(_DATA["gelu_erf"]["p"])
GELU_ERF_A = tuple(float(_DATA["gelu_erf"][f"a{i}"]) for i in range(1, 6))
GELU_ERF_EXP2 = float(_DATA["gelu_erf"]["exp2"])
# A decimal number as a spec's output scale: digits, an optional fraction and exponent.
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
# fp8 is storage-only (it cannot be a loop-carried or yielded value): the
# copies move its bytes as i8; the fragment reads from LDS take it as fp8.
_BITS = {T.F8E4M3: T.I8, T.F8E5M2: T.I8}


@dataclasses.dataclass(frozen=True)
class GemmConfig:
    """The matrix-core main loop's config: matrix op id `op` (e.g.
    "mma_16x16x16_f16_f32") and the block and its waves, `tile` (a
    tile.Tile, validated on construction; its mma is the op's shape)."""

    op: str
    tile: Tile
    direct_lds: bool = True  # where the arch and both operands allow, the fast loop loads straight to LDS (_direct)
    edge_units: bool = False  # the guarded loop's plain (not gathered) copies read 16-byte units (TileCopy.edge_units)

    def threads(self, wave):
        return self.tile.waves * wave

    def check(self, generation):
        """FieldError unless the op has a fragment layout on `generation` and the tile's mma is its shape."""
        if (self.op, generation) not in FRAGMENTS:
            raise FieldError(
                f"GemmConfig: expected an op with a fragment layout on {generation}, got {self.op}",
                "GemmConfig",
                {"op": self.op, "generation": generation},
            )
        s = M.shape(self.op)
        shape = f"{s.m}x{s.n}x{s.k}"
        if self.tile.mma != shape:
            raise FieldError(
                f"GemmConfig.tile.mma: expected {self.op}'s shape {shape}, got {self.tile.mma!r}",
                "GemmConfig.tile.mma",
                self.tile.mma,
                [shape],
            )


@dataclasses.dataclass(frozen=True)
class FmaConfig:
    """The FMA main loop's config (fma_mainloop): a block_m x block_n block, one lane per output."""

    block_m: int
    block_n: int

    def threads(self):
        return self.block_m * self.block_n


@dataclasses.dataclass
class Operands:
    """Where the problem lives: pointers, sizes (i32 values), leading dims,
    and each operand's layout: "row" (row-major, the default) or "col".
    With `a_gather` (a tile.gather.Gather), A is gathered: its addresses
    come from that callback and `lda` and `a_layout` are unused. `b_gather`
    does the same for B (its callback takes (column, k)): `ldb` and
    `b_layout` are unused."""

    a: object
    b: object
    m: object
    n: object
    k: object
    lda: object
    ldb: object
    a_layout: str = "row"
    b_layout: str = "row"
    a_gather: object = None
    b_gather: object = None

    def __post_init__(self):
        for name in ("a_layout", "b_layout"):
            if getattr(self, name) not in LAYOUTS:
                raise FieldError(
                    f"Operands: expected {name} in {LAYOUTS}, got {getattr(self, name)!r}",
                    "Operands",
                    {name: getattr(self, name)},
                    LAYOUTS,
                )


def _transpose_b(arch, ops, elem, frag, span):
    """Whether B's fragments are read transposed (mem.load_transpose): B
    row-major and not gathered (so the copy moves it as it is, no transposing writes), 16-bit
    elements, an arch with the instruction, fragments of whole 16-lane
    groups and whole 4-k reads."""
    return (
        arch in LDS_OPS["mem.load_transpose"].archs
        and ops.b_gather is None
        and ops.b_layout == "row"
        and elem.nbytes == 2
        and frag.rows % TRANSPOSE_GROUP == 0
        and span % 4 == 0
    )


def _direct(cfg, arch, ops, elem, threads, transpose_b, line_bytes):
    """Whether the fast loop copies both tiles with buffer.load_to_lds
    (copy.DirectCopy) into two LDS buffers: asked for, an arch with the
    instruction, and each operand's 16-byte LDS units contiguous in memory:
    A row-major; B column-major, or row-major and read transposed (its LDS
    rows are its k-rows, whole lines: lds.RowXor). Neither gathered: a
    gathered unit may be padding, which must read as zero, and the load
    cannot zero it. Both tiles whole rounds of 16 bytes a lane."""
    if not (
        cfg.direct_lds and arch in LDS_OPS["buffer.load_to_lds"].archs and ops.a_gather is None and ops.b_gather is None
    ):
        return False
    b_units = (transpose_b and cfg.tile.block_n * elem.nbytes % line_bytes == 0) or ops.b_layout == "col"
    t = cfg.tile
    whole = all(rows * t.block_k * elem.nbytes % (threads * UNIT) == 0 for rows in (t.block_m, t.block_n))
    return ops.a_layout == "row" and b_units and whole


def _merge(steps, per_lane, elem_bytes):
    """How many mma k steps one fragment read serves: the most that fit 16 bytes."""
    return max([j for j in range(1, steps + 1) if steps % j == 0 and per_lane * j * elem_bytes <= UNIT] or [1])


def mainloop(b, cfg, ops, elem, row0, col0):
    """Accumulators (f32 fragments, one per m x n sub-tile of this wave) for the block at (row0, col0)."""
    cfg.check(b.arch.generation)
    t = cfg.tile
    s = M.shape(cfg.op)
    frag = FRAGMENTS[(cfg.op, b.arch.generation)]
    c_t = M.fragment_types(cfg.op, b.arch.generation)[2]
    wave, threads = b.wave_size, cfg.threads(b.wave_size)
    tid, lane = b.thread_id(0), b.lane_id()
    w = b.udiv(tid, wave)
    wave_row, wave_col = (
        b.mul(b.udiv(w, t.waves_n), t.block_m // t.waves_m),
        b.mul(b.urem(w, t.waves_n), t.block_n // t.waves_n),
    )
    tiles_m, tiles_n = t.block_m // t.waves_m // s.m, t.block_n // t.waves_n // s.n
    banks = archs.lds_banks(b.kernel.attrs["arch"])
    lay_a = KMajor(t.block_m, t.block_k, elem.nbytes, banks.count * banks.bytes)
    lay_b = KMajor(t.block_n, t.block_k, elem.nbytes, banks.count * banks.bytes)
    bits = _BITS.get(elem, elem)
    if ops.a_gather is None:
        copy_a = TileCopy(ops.a, ops.lda, _A_CONTIGUOUS[ops.a_layout], lay_a, bits, threads, cfg.edge_units)
    else:
        copy_a = GatherCopy(ops.a, 0, ops.a_gather.contiguous, lay_a, bits, threads, gather=ops.a_gather)
    steps = t.block_k // s.k
    merge = _merge(steps, frag.per_lane, elem.nbytes)
    span = frag.per_lane * merge  # consecutive k per lane and read
    transpose_b = _transpose_b(b.kernel.attrs["arch"], ops, elem, frag, span)
    direct = _direct(cfg, b.kernel.attrs["arch"], ops, elem, threads, transpose_b, lay_a.line_bytes)
    if transpose_b:  # B as it is in memory: k-rows of block_n contiguous elements
        # Filled slot by slot (direct), B's rows are swizzled rather than padded.
        lay_b = (
            RowXor(t.block_k, t.block_n, elem.nbytes, lay_a.line_bytes, TRANSPOSE_PAD)
            if direct
            else Padded(t.block_k, t.block_n, elem.nbytes, TRANSPOSE_PAD)
        )
        copy_b = TileCopy(ops.b, ops.ldb, "k", lay_b, bits, threads, cfg.edge_units)
    elif ops.b_gather is not None:
        copy_b = GatherCopy(ops.b, 0, ops.b_gather.contiguous, lay_b, bits, threads, gather=ops.b_gather)
    else:
        copy_b = TileCopy(ops.b, ops.ldb, _B_CONTIGUOUS[ops.b_layout], lay_b, bits, threads, cfg.edge_units)
    buffers = 2 if direct else 1
    lds_a, lds_b = b.lds_alloc(lay_a.nbytes * buffers), b.lds_alloc(lay_b.nbytes * buffers)
    b_at = (
        (lambda kk: (kk, col0)) if transpose_b else (lambda kk: (col0, kk))
    )  # B's tile at k step kk, as (row, k) of its copy
    lane_row, lane_k = frag.origin(b, lane, span)
    # Every fragment read's LDS offset, computed once for both loops: [u][tile].
    ks = [b.add(lane_k, u * frag.groups * span) for u in range(steps // merge)]
    offsets_a = [
        [
            lay_a.offsets(b, b.add(wave_row, lane_row), b.add(k, i), range(0, tiles_m * s.m, s.m))
            for i in range(0, span, lay_a.unit_elems)
        ]
        for k in ks
    ]
    if transpose_b:
        # Lane q of a 16-lane group names row k + q // 4 (+ 4j), columns
        # 4(q % 4) .. + 3 from the group's first column: the group reads a
        # 4 x 16 tile by rows, and each lane gets its own column's 4 k.
        lane_q = b.urem(lane, TRANSPOSE_GROUP)
        col = b.add(b.add(wave_col, b.sub(lane_row, lane_q)), b.mul(b.urem(lane_q, 4), 4))
        if direct:  # RowXor: every tile's offset computed (the swizzle is not a shift)

            def tiles(row):
                return [lay_b.offset(b, row, b.add(col, nt * s.n)) for nt in range(tiles_n)]

            tr_offsets = [[tiles(b.add(k, b.add(b.udiv(lane_q, 4), 4 * j))) for j in range(span // 4)] for k in ks]
        else:
            tr_offsets = [
                [lay_b.offset(b, b.add(k, b.add(b.udiv(lane_q, 4), 4 * j)), col) for j in range(span // 4)] for k in ks
            ]
    else:
        offsets_b = [
            [
                lay_b.offsets(b, b.add(wave_col, lane_row), b.add(k, i), range(0, tiles_n * s.n, s.n))
                for i in range(0, span, lay_b.unit_elems)
            ]
            for k in ks
        ]

    def read_b(lds, u, nt):
        """B's fragment of tile nt at k step u: as A's, or by transposed reads of 4 k each."""
        if not transpose_b:
            return read(lds, offsets_b[u], nt)
        if direct:
            return join([b.load_transpose(b.offset(lds, at[nt]), elem) for at in tr_offsets[u]])
        return join([b.load_transpose(b.offset(lds, b.add(at, nt * s.n * elem.nbytes)), elem) for at in tr_offsets[u]])

    def join(loaded):
        """Reads joined pairwise by shuffles into one vector."""
        while len(loaded) > 1:
            loaded = [b.shuffle(x, y, list(range(2 * x.type.n))) for x, y in zip(loaded[::2], loaded[1::2])]
        return loaded[0]

    def read(lds, parts, tile):
        """A lane's `span` consecutive k of one tile's row: one read per 16-byte unit, joined."""
        per = min(span, lay_a.unit_elems)  # both tiles hold `elem`: the same unit
        return join([b.load(b.offset(lds, part[tile]), T.vector(elem, per)) for part in parts])

    def fragments(u, la, lb):
        """k step u's A and B fragment reads from the tiles at `la` and `lb`."""
        return [read(la, offsets_a[u], mt) for mt in range(tiles_m)], [read_b(lb, u, nt) for nt in range(tiles_n)]

    def multiply(acc, la=lds_a, lb=lds_b):
        acc = list(acc)
        for u in b.unroll(steps // merge):
            acc = mmas(acc, *fragments(u, la, lb))
        return acc

    def mmas(acc, a_reads, b_reads):
        """The matrix ops of one fragment read's k steps."""
        acc = list(acc)
        for q in range(merge):
            pick = list(range(q * frag.per_lane, (q + 1) * frag.per_lane))
            a_frags = [x if merge == 1 else b.shuffle(x, x, pick) for x in a_reads]
            b_frags = [x if merge == 1 else b.shuffle(x, x, pick) for x in b_reads]
            for nt in range(tiles_n):
                for mt in range(tiles_m):
                    i = mt * tiles_n + nt
                    acc[i] = b.mma(cfg.op, b_frags[nt], a_frags[mt], acc[i])  # C transposed
        return acc

    inside = b.and_(b.cmp("le", b.add(row0, t.block_m), ops.m), b.cmp("le", b.add(col0, t.block_n), ops.n))
    fast_block = inside
    if ops.a_gather is not None and ops.a_gather.fast_from > 0:  # a block before it is gathered guarded
        fast_block = b.and_(fast_block, b.cmp("ge", row0, ops.a_gather.fast_from))
    if ops.a_gather is not None and ops.a_gather.fast_to > 0:  # and one past it
        fast_block = b.and_(fast_block, b.cmp("le", b.add(row0, t.block_m), ops.a_gather.fast_to))
    k_fast = b.select(fast_block, b.sub(ops.k, b.urem(ops.k, t.block_k)), 0)
    zero = b.build([b.const(0.0, T.F32)] * c_t.n)
    acc = [zero] * (tiles_m * tiles_n)

    if direct:
        fast = _direct_loop(
            b,
            cfg,
            copy_a,
            copy_b,
            lay_a,
            lay_b,
            lds_a,
            lds_b,
            row0,
            b_at,
            k_fast,
            acc,
            tid,
            w,
            fragments,
            mmas,
            steps // merge,
        )
    else:
        with b.if_(b.cmp("gt", k_fast, 0)):
            copy_a.store(b, lds_a, copy_a.load(b, row0, 0, tid), tid)
            copy_b.store(b, lds_b, copy_b.load(b, *b_at(0), tid), tid)
        b.barrier()
        with b.for_range(0, k_fast, t.block_k, acc) as fast:
            # LDS holds this step's tiles. The next step's loads come first and
            # fly during the matrix work; only the LDS writes after it wait.
            nxt = b.min(b.add(fast.iv, t.block_k), b.sub(k_fast, t.block_k))  # the last step reloads itself: no branch
            regs_a, regs_b = copy_a.load(b, row0, nxt, tid), copy_b.load(b, *b_at(nxt), tid)
            ordered, pinned = b.arch.generation in PREFETCH_FIRST, b.arch.generation in MATRIX_FIRST
            if ordered or pinned:
                b.sched_barrier()
            acc = multiply(fast.iters)
            if pinned:
                b.sched_barrier()
            barrier = b.lds_barrier if ordered else b.barrier
            barrier()  # every wave is done reading this step's tiles
            copy_a.store(b, lds_a, regs_a, tid)
            copy_b.store(b, lds_b, regs_b, tid)
            barrier()
            b.yield_(*acc)
    with b.for_range(k_fast, ops.k, t.block_k, fast.results) as edge:
        b.barrier()
        copy_a.guarded(b, lds_a, row0, edge.iv, ops.m, ops.k, tid)
        copy_b.guarded(b, lds_b, *b_at(edge.iv), *((ops.k, ops.n) if transpose_b else (ops.n, ops.k)), tid)
        b.barrier()
        b.yield_(*multiply(edge.iters))
    return _Accumulators(edge.results, wave_row, wave_col, tiles_n, s, frag, lane, inside)


def _direct_loop(
    b, cfg, copy_a, copy_b, lay_a, lay_b, lds_a, lds_b, row0, b_at, k_fast, acc, tid, w, fragments, mmas, reads
):
    """The fast loop with direct-to-LDS loads into two buffers per tile
    (_direct): step k's tiles are in buffer k % 2, and step k + 1's land in
    the other one while step k is multiplied. Each iteration reads all of
    its fragments, then starts the next tiles' loads (so that no LDS read
    of the same allocation comes after them: issued first, LLVM 20-24 make
    the reads wait for them, vmcnt(0) before the first), then runs the
    matrix ops; its one barrier (whose lowering waits for the direct loads:
    lds_ops.json's barrier_wait) hands the loaded buffer over and frees the
    read one. A sched_barrier keeps the matrix ops before it: else LLVM
    hoists the barrier, and so the wait, above three of the eight MFMAs.
    The loads' addresses are a per-lane offset computed once and the
    tile's origin as their wave-uniform offset (copy.DirectCopy.issue):
    no vector instruction an iteration (docs/figures/loops.md has the
    figures beside the register path's)."""
    t = cfg.tile
    direct_a = DirectCopy(copy_a.src, copy_a.ld, lay_a, copy_a.elem, copy_a.threads)
    direct_b = DirectCopy(copy_b.src, copy_b.ld, lay_b, copy_b.elem, copy_b.threads)
    wave_at = b.readfirstlane(b.mul(w, b.wave_size * UNIT))  # where this wave's slots start: an SGPR, for M0
    lanes_a, lanes_b = direct_a.lanes(b, tid), direct_b.lanes(b, tid)
    with b.if_(b.cmp("gt", k_fast, 0)):
        direct_a.issue(b, lds_a, lanes_a, row0, 0, wave_at)
        direct_b.issue(b, lds_b, lanes_b, *b_at(0), wave_at)
    b.barrier()
    with b.for_range(0, k_fast, t.block_k, acc) as fast:
        odd = b.urem(b.udiv(fast.iv, t.block_k), 2)
        at_a, at_b = b.mul(odd, lay_a.nbytes), b.mul(odd, lay_b.nbytes)
        la, lb = b.offset(lds_a, at_a), b.offset(lds_b, at_b)
        loaded = [fragments(u, la, lb) for u in b.unroll(reads)]
        nxt = b.min(b.add(fast.iv, t.block_k), b.sub(k_fast, t.block_k))  # the last step reloads itself: no branch
        direct_a.issue(b, b.offset(lds_a, b.sub(lay_a.nbytes, at_a)), lanes_a, row0, nxt, wave_at)
        direct_b.issue(b, b.offset(lds_b, b.sub(lay_b.nbytes, at_b)), lanes_b, *b_at(nxt), wave_at)
        sums = list(fast.iters)
        for a_reads, b_reads in loaded:
            sums = mmas(sums, a_reads, b_reads)
        b.sched_barrier()
        b.barrier()
        b.yield_(*sums)
    return fast


@dataclasses.dataclass
class _Accumulators:
    frags: list
    wave_row: object
    wave_col: object
    tiles_n: int
    shape: object
    frag: object
    lane: object
    inside: object  # i1: the whole block lies inside M x N

    def runs(self, b):
        """(row, col, [f32 values]) of every run of this lane's accumulator
        elements that are consecutive columns of one row, within the block."""
        run = self.frag.c_run
        for i, acc in enumerate(self.frags):
            mt, nt = divmod(i, self.tiles_n)
            for v in range(0, acc.type.n, run):
                col, row = self.frag.c(b, self.lane, v)  # the mma computed C transposed
                yield (
                    b.add(b.add(self.wave_row, mt * self.shape.m), row),
                    b.add(b.add(self.wave_col, nt * self.shape.n), col),
                    [b.extract(acc, v + j) for j in range(run)],
                )

    def elements(self, b):
        """(row, col, f32 value) of every accumulator element this lane holds, within the block."""
        for row, col, values in self.runs(b):
            for j, value in enumerate(values):
                yield row, b.add(col, j), value


def fma_mainloop(b, cfg, ops, elem, row0, col0):
    """Fallback without matrix cores (`cfg` an FmaConfig): lane (r, c) of the block accumulates one output."""
    tid = b.thread_id(0)
    r, c = b.udiv(tid, cfg.block_n), b.urem(tid, cfg.block_n)
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


def scale_value(text):
    """The output scale a spec spells as `text` (a decimal string) as the kernel multiplies by it:
    an f32 value, as a Python float; None unless `text` is a decimal whose f32 is positive and finite."""
    if not isinstance(text, str) or not _DECIMAL.fullmatch(text) or not float(text) < 3.4e38:
        return None
    value = struct.unpack("<f", struct.pack("<f", float(text)))[0]
    return value if value > 0 else None


# A spec's residual field: none, or where the residual is added.
RESIDUAL_FIELD = ("none", *RESIDUALS)


def check_epilogue_fields(spec, fail):
    """A spec's epilogue fields (bias, activation, residual, scale: conv's and GEMM's), each
    refused through fail(field, value, allowed, choices)."""
    if not isinstance(spec.bias, bool):
        fail("bias", spec.bias, "True or False")
    for field, allowed in (("activation", ACTIVATIONS), ("residual", RESIDUAL_FIELD)):
        if getattr(spec, field) not in allowed:
            fail(field, getattr(spec, field), f"one of {', '.join(allowed)}", allowed)
    if scale_value(spec.scale) is None:
        fail("scale", spec.scale, "a positive decimal string such as '0.5' (finite and above 0 as f32)")


def spec_epilogue(spec):
    """epilogue's and finish's keywords for a spec's activation, residual place and scale."""
    return {
        "activation": spec.activation,
        "residual_at": RESIDUALS[0] if spec.residual == "none" else spec.residual,
        "scale": scale_value(spec.scale),
    }


def check_epilogue(activation, residual_at):
    """FieldError unless `activation` is one of ACTIVATIONS and `residual_at` one of RESIDUALS."""
    for field, value, allowed in (("activation", activation, ACTIVATIONS), ("residual_at", residual_at, RESIDUALS)):
        if value not in allowed:
            raise FieldError(
                f"epilogue: expected {field} one of {', '.join(allowed)}, got {value!r}",
                "epilogue",
                {field: value},
                allowed,
            )


def _reciprocal(b, x):
    """1 / x for x >= 1 as rsqrt(x * x) (v_rsq_f32, 1 ulp; x * x = inf gives 0): an IR division is
    LLVM's correctly rounded fdiv, a dozen instructions with scale and fix-up steps this never needs."""
    return b.rsqrt(b.mul(x, x))


def _gelu_tanh(b, x):
    """x * sigmoid(2u) (GELU_TANH says which u): exp2 of at most 0 past x = 0 flushes to 0, and
    of a large argument gives inf, whose reciprocal is 0."""
    k0, k1 = (b.const(k, T.F32) for k in GELU_TANH)
    e = b.exp2(b.mul(x, b.fma(b.mul(x, x), k1, k0)))
    return b.mul(x, _reciprocal(b, b.add(e, 1.0)))


def _gelu_erf(b, x):
    """x * (1 - h) for x >= 0, x * h below, h = (1 - erf(|x| / sqrt(2))) / 2 (GELU_ERF_A: its
    approximation and bound)."""
    t = _reciprocal(b, b.fma(b.max(x, b.neg(x)), b.const(GELU_ERF_P, T.F32), b.const(1.0, T.F32)))
    poly = b.const(GELU_ERF_A[-1], T.F32)
    for a in reversed(GELU_ERF_A[:-1]):
        poly = b.fma(poly, t, b.const(a, T.F32))
    h = b.mul(b.mul(poly, t), b.exp2(b.mul(b.mul(x, x), GELU_ERF_EXP2)))
    return b.mul(x, b.select(b.cmp("lt", x, 0.0), h, b.sub(1.0, h)))


# activation -> its f32 value of an f32 value.
_ACTIVATE = {
    "none": lambda b, x: x,
    "relu": lambda b, x: b.max(x, 0.0),
    "relu6": lambda b, x: b.min(b.max(x, 0.0), 6.0),
    "gelu_tanh": _gelu_tanh,
    "gelu_erf": _gelu_erf,
}


def finish(b, values, activation="none", bias=None, residual=None, residual_at="before_activation", scale=1.0):
    """The epilogue's arithmetic on f32 `values`, every family's:

        scale * (act(x + bias + residual) or act(x + bias) + residual)

    the residual added before or after the activation (`residual_at`). `bias` and `residual`
    (None: not added) give element j's f32 addend as called with j, each read just before its
    add. A scale of 1 multiplies nothing."""
    if bias is not None:
        values = [b.add(x, bias(j)) for j, x in enumerate(values)]
    if residual is not None and residual_at == "before_activation":
        values = [b.add(x, residual(j)) for j, x in enumerate(values)]
    values = [_ACTIVATE[activation](b, x) for x in values]
    if residual is not None and residual_at == "after_activation":
        values = [b.add(x, residual(j)) for j, x in enumerate(values)]
    if scale != 1.0:
        values = [b.mul(x, scale) for x in values]
    return values


def epilogue(
    b,
    elements,
    out,
    ldc,
    m,
    n,
    row0,
    col0,
    out_elem,
    bias=None,
    activation="none",
    residual=None,
    residual_at="before_activation",
    scale=1.0,
    atomic=False,
    inside=None,
    rows=None,
):
    """Store (or atomically add) every output value inside the m x n output.

    `elements` yields (row, col, f32 value), or (row, col, [f32 values]) for
    a run of consecutive columns (_Accumulators.runs). Finishes each value
    first (finish): adds bias[col] (f32), the residual (an `out_elem` tensor
    laid out as the output, ldc included) before or after the activation,
    the activation and the scale (an f32 value), then converts to `out_elem`.
    atomic=True accumulates into f32 output (split-K). `inside` (an i1, true
    when the whole block lies inside m x n: _Accumulators.inside) gives such
    blocks one branch and unguarded stores, a run as one vector store;
    without it, or outside, every element is checked. `rows` (an int: the
    block's row count, GemmConfig.tile.block_m) checks them without branches:
    buffer stores over the block's rows of the output that the hardware
    drops out of range (the comment at `buffered` says why); without it, or
    atomic (there is no buffer atomic op), one branch per element.
    """
    check_epilogue(activation, residual_at)
    if atomic and out_elem is not T.F32:
        raise FieldError(
            f"epilogue: expected f32 output for atomic accumulation, got {out_elem}",
            "epilogue",
            {"out_elem": str(out_elem)},
            [str(T.F32)],
        )
    runs = [(r, c, v if isinstance(v, list) else [v]) for r, c, v in elements]

    def load_bias(gc, count):
        ptr = b.offset(bias, b.mul(gc, 4))
        return b.load_wide(ptr, T.vector(T.F32, count)) if count > 1 else b.load(ptr, T.F32)

    def load_residual(gr, gc, count):
        """The residual of a run of `count` at (gr, gc): one load, its f32 values."""
        ptr = b.offset(residual, b.mul(b.add(b.mul(gr, ldc), gc), out_elem.nbytes))
        if count == 1:
            return [b.convert(b.load(ptr, out_elem), T.F32)]
        loaded = b.load_wide(ptr, T.vector(out_elem, count))
        return [b.convert(b.extract(loaded, j), T.F32) for j in range(count)]

    def finished(values, gc, load, reload):
        """The run's values through finish: bias read by `load`, the residual by `reload` (its f32 values)."""
        loaded = load(gc, len(values)) if bias is not None else None
        residuals = reload() if residual is not None else None

        def bias_of(j):
            return loaded if len(values) == 1 else b.extract(loaded, j)

        return finish(
            b,
            values,
            activation,
            None if loaded is None else bias_of,
            None if residuals is None else residuals.__getitem__,
            residual_at,
            scale,
        )

    # Without a bias the values stored are the same on every path: finished
    # and converted once, here, before any branch. Converted in each arm,
    # LLVM's machine CSE hoists what the arms share above the branch piece
    # by piece (bf16 without a conversion instruction: 3 temporaries per
    # element live across it, which nearly doubles gemm_f16_bcol_bf16_gfx1201's VGPRs).
    shared = bias is None and residual is None
    if shared:
        runs = [(r, c, [b.convert(x, out_elem) for x in finished(values, None, None, None)]) for r, c, values in runs]

    def ready(values, gc, reload, load=load_bias):
        """The run's values as stored: finished and converted unless `shared` did it."""
        return values if shared else [b.convert(x, out_elem) for x in finished(values, gc, load, reload)]

    def checked():
        for r, c, values in runs:
            gr = b.add(row0, r)
            for j, value in enumerate(values):
                gc = b.add(b.add(col0, c), j)
                with b.if_(b.and_(b.cmp("lt", gr, m), b.cmp("lt", gc, n))):
                    (value,) = ready([value], gc, lambda: load_residual(gr, gc, 1))
                    ptr = b.offset(out, b.mul(b.add(b.mul(gr, ldc), gc), out_elem.nbytes))
                    b.atomic_add(ptr, value) if atomic else b.store(ptr, value)

    # The edge without branches. One `if` per accumulator element (64 a lane
    # on the 128x128 tiles, each with its address math) would be ~40% of the
    # unoptimised IR; buffer stores give fewer instructions and a faster
    # compile at equal or fewer VGPRs (docs/figures/llvm-time.md). The
    # hardware drops a buffer store out of its buffer's range (and reads 0
    # for a load out of it). The buffer spans the block's rows of the
    # output inside m, min(m - row0, rows), none for a block wholly past m
    # (a negative count would be a huge unsigned one), so a row past m lies
    # past its end; a column past n gets the offset nbytes, out of range
    # however the hardware compares (offset >= size, or offset + access >
    # size); all of it is range checked: the scalar offset, which is not, is
    # 0 (gemm_isa_test). The bias reads through a buffer of its n values, the residual
    # through one like the output's: 0 past n or m, and that value is dropped. The count is a select, not max(..., 0): LLVM
    # fuses min and max into v_med3_i32, a vector op, and a buffer built
    # from vector registers turns every store into a waterfall loop (gemm_isa_test).
    # nbytes is i32 like every offset here, at most rows x ldc x elem bytes:
    # below 2**31 wherever the output's own offsets are (conv: ConvSpec
    # refuses tensors past 2**31 - 1 bytes; GEMM's m, n and ldc are run-time
    # values, and C's element offsets are i32 too).
    def buffered():
        live = b.select(b.cmp("lt", row0, m), b.min(b.sub(m, row0), rows), 0)
        nbytes = b.mul(b.mul(live, ldc), out_elem.nbytes)
        dst = b.buffer_rsrc(b.offset(out, b.mul(b.mul(row0, ldc), out_elem.nbytes)), nbytes)
        src = None if bias is None else b.buffer_rsrc(bias, b.mul(n, 4))
        near = None
        if residual is not None:
            near = b.buffer_rsrc(b.offset(residual, b.mul(b.mul(row0, ldc), out_elem.nbytes)), nbytes)

        def at(r, gc):
            """The byte offset of (r, gc) in the block's buffer: nbytes, out of range, past n."""
            offset = b.mul(b.add(b.mul(r, ldc), gc), out_elem.nbytes)
            return b.select(b.cmp("lt", gc, n), offset, nbytes)

        for r, c, values in runs:
            for j, value in enumerate(values):
                gc = b.add(b.add(col0, c), j)
                (value,) = ready(
                    [value],
                    gc,
                    lambda: [b.convert(b.buffer_load(near, at(r, gc), out_elem), T.F32)],
                    lambda gc, count: b.buffer_load(src, b.mul(gc, 4), T.F32),
                )
                b.buffer_store(dst, at(r, gc), value)

    def whole():
        for r, c, values in runs:
            gr, gc = b.add(row0, r), b.add(col0, c)
            values = ready(values, gc, lambda: load_residual(gr, gc, len(values)))
            ptr = b.offset(out, b.mul(b.add(b.mul(gr, ldc), gc), out_elem.nbytes))
            if atomic:
                for j, value in enumerate(values):
                    b.atomic_add(b.offset(ptr, 4 * j), value)
            elif len(values) == 1:
                b.store(ptr, values[0])
            else:
                b.store_wide(ptr, b.build(values))

    edge = checked if atomic or rows is None else buffered
    if inside is None:
        edge()
        return
    br = b.if_(inside)
    with br.then_():
        whole()
    with br.else_():
        edge()
