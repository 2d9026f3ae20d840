"""Cooperative copies of a GEMM operand tile from global memory to LDS.

The tile is `rows` x `k` (rows: the M index of A or the N index of B) and
lands in LDS K-major (lds.KMajor). In global memory it is either k-contiguous
(A row-major, B column-major: `contiguous="k"`) or rows-contiguous (A
column-major, B row-major: `contiguous="rows"`).

Two paths:
  - `load` then `store`: a whole tile inside the problem. Every lane issues
    16-byte vector loads with no bounds check, all of them before the first
    use, into registers; `store` writes those registers to LDS later (the
    main loop prefetches tile k+1 this way while tile k is multiplied). A
    rows-contiguous source is transposed on the way: each lane loads `k_run`
    k-rows (2 or 4) of the same `run` rows (a unit's 8, or 4) and writes
    `run` vectors of k_run consecutive k of one row (a dword, or 8 bytes).
    A gemm B copy takes the defaults (2 k-rows of 8); attention's V picks
    the shape that gives every lane one move (library/attention).
  - `guarded`: an edge tile (blocks at the problem's edge, a last partial
    k step), zero outside the problem. By default a rolled loop over the
    tile's elements, each loaded only where it lies inside: cold code, small,
    where edge blocks are few. With `edge_units` (for a problem whose blocks
    are mostly edge ones, such as a GEMM with m = 1: the caller decides),
    where every 16-byte unit lies wholly inside or wholly outside the
    problem (its size along the contiguous index and `ld` multiples of a
    unit, checked at run time unless both are constants), `load`'s moves
    through a buffer whose range check reads zero for a unit outside: its
    offset is set to the buffer's end (UNCHECKED); the element loop stays
    for the other sizes.

DirectCopy (gfx950) moves a tile that is contiguous along its LDS units
(each 16-byte unit of the layout is 16 consecutive bytes of the source)
with buffer.load_to_lds: no registers, no LDS write instructions. The load
writes lane L's 16 bytes at a wave-uniform LDS address + 16 L, so the
lanes fill LDS slot after slot, and each lane fetches the unit its slot
holds (the layout's unit_at, the inverse of its swizzle). The buffer form,
not mem.load_to_lds's global one, because its address is two 32-bit
parts: the lane's offset inside the tile (a VGPR, the same for every
tile) and the tile's origin (an SGPR). LLVM 20-24 recompute a global
load's full 64-bit per-lane address every iteration (3-5 vector
instructions a load) and never pick its scalar-base form in the loop
(they hoist the offset's zero-extension out of it).
"""

import dataclasses

from errors.errors import FieldError
from ir import types as T
from tile.lds import UNIT, KMajor

CONTIGUOUS = ("k", "rows")
# (k_run, run) of a rows-contiguous copy: 2 k-rows of a unit's rows (the default, the only one with
# edge_units or a k-contiguous copy), 2 k-rows of 4 rows, 4 k-rows of a unit's rows.
RUNS = ((2, 0), (2, 4), (4, 0))
# DirectCopy's buffer spans every i32 byte offset: it copies whole tiles
# inside the problem, unguarded like TileCopy.load, and its offsets are i32
# like every element offset here. An edge unit outside the problem reads
# from this offset, past every byte of such a buffer: zeros.
UNCHECKED = 0x7FFFFFFF


@dataclasses.dataclass(frozen=True)
class TileCopy:
    src: object  # global pointer
    ld: object  # leading dimension in elements (i32 value or int)
    contiguous: str  # "k" or "rows"
    layout: KMajor
    elem: object  # element type
    threads: int
    edge_units: bool = False  # `guarded` reads whole 16-byte units where it can (the docstring above says when)
    k_run: int = 2  # rows-contiguous: the consecutive k one LDS write holds (2 or 4)
    run: int = 0  # rows-contiguous: the rows one load holds (0: a unit's, lds.UNIT bytes)

    def __post_init__(self):
        if self.contiguous not in CONTIGUOUS:
            raise FieldError(
                f"TileCopy: expected contiguous in {CONTIGUOUS}, got {self.contiguous!r}",
                "TileCopy",
                {"contiguous": self.contiguous},
                CONTIGUOUS,
            )
        shape = (self.k_run, self.run)
        if shape not in RUNS or (shape != RUNS[0] and (self.contiguous != "rows" or self.edge_units)):
            among = ", ".join(f"{k}/{r}" for k, r in RUNS)
            raise FieldError(
                f"TileCopy: expected k_run/run among {among} (all but {among[:3]} only rows-contiguous without "
                f"edge_units), got {self.k_run}/{self.run} for {self.contiguous!r}",
                "TileCopy",
                {"contiguous": self.contiguous, "k_run": self.k_run, "run": self.run},
                [list(r) for r in RUNS],
            )
        per, kr = self._run, self.k_run
        if self.contiguous == "rows" and (self.layout.rows % per or self.layout.k % kr):
            raise FieldError(
                f"TileCopy: a rows-contiguous tile needs rows a multiple of {per} and k a multiple of {kr}, got {self.layout.rows} x {self.layout.k}",
                "TileCopy",
                {"rows": self.layout.rows, "k": self.layout.k},
            )
        if self._count % self.threads and self.threads % self._count:
            raise FieldError(
                f"TileCopy: expected the tile's {self._count} moves to divide or be a multiple of the {self.threads} threads, got {self.layout.rows} x {self.layout.k}",
                "TileCopy",
                {"rows": self.layout.rows, "k": self.layout.k, "threads": self.threads},
            )

    @property
    def _run(self):
        """Elements of one load: a unit's, or `run`."""
        return self.run or self.layout.unit_elems

    @property
    def _count(self):
        """Moves of the whole tile: vectors (k-contiguous) or k_run vectors (rows-contiguous)."""
        per_move = self._run * (1 if self.contiguous == "k" else self.k_run)
        return self.layout.rows * self.layout.k // per_move

    def _lane_moves(self, b, tid):
        """Move indices of this lane; where the tile has fewer moves than threads,
        the extra lanes repeat the last move (same data to the same place)."""
        if self._count < self.threads:
            return [b.min(tid, self._count - 1)]
        return [b.add(tid, i * self.threads) for i in range(self._count // self.threads)]

    @property
    def _vector(self):
        return T.vector(self.elem, self._run)

    def _moves(self, b, tid):
        """(row, k) of each move this lane makes: one vector (k-contiguous) or k_run k-rows."""
        per, k = self._run, self.layout.k
        for q in self._lane_moves(b, tid):
            if self.contiguous == "k":
                yield b.udiv(q, k // per), b.mul(b.urem(q, k // per), per)
            else:
                runs = k // self.k_run  # a wave's lanes take all k runs of a few row blocks (lds.py: why)
                yield b.mul(b.udiv(q, runs), per), b.mul(b.urem(q, runs), self.k_run)

    def load(self, b, row0, k0, tid):
        """Registers holding the whole tile at (row0, k0) of the source: 16-byte loads, unguarded."""
        eb, vec = self.elem.nbytes, self._vector
        regs = []
        for row, k in self._moves(b, tid):
            if self.contiguous == "k":
                regs.append(
                    b.load(b.offset(self.src, b.mul(b.add(b.mul(b.add(row0, row), self.ld), b.add(k0, k)), eb)), vec)
                )
            else:
                at = b.add(b.mul(b.add(k0, k), self.ld), b.add(row0, row))
                for i in range(self.k_run):
                    at = at if i == 0 else b.add(at, self.ld)
                    regs.append(b.load(b.offset(self.src, b.mul(at, eb)), vec))
        return regs

    def reg_types(self):
        """The types of `load`'s registers (as many for both sources)."""
        per_move = 1 if self.contiguous == "k" else self.k_run
        return [self._vector] * (per_move * max(1, self._count // self.threads))

    def zeros(self, b):
        """Registers of `load`'s types, all zero."""
        zero = b.build([b.const(0.0 if self.elem.is_float else 0, self.elem)] * self._run)
        return [zero] * len(self.reg_types())

    def store(self, b, lds, regs, tid):
        """Write `load`'s registers to LDS in the K-major layout."""
        moves = list(self._moves(b, tid))
        if self.contiguous == "k":
            for (row, k), v in zip(moves, regs):
                b.store(b.offset(lds, self.layout.offset(b, row, k)), v)
            return
        kr = self.k_run
        for i, (row, k) in enumerate(moves):
            vs = regs[kr * i : kr * (i + 1)]
            for j in range(self._run):
                run = b.build([b.extract(v, j) for v in vs])
                b.store(b.offset(lds, self.layout.offset(b, b.add(row, j), k)), run)

    def guarded(self, b, lds, row0, k0, rows, ks, tid):
        """Copy the tile at (row0, k0) to LDS; zero outside rows x ks of the source."""
        whole = self._whole_units(b, rows, ks) if self.edge_units else False
        if isinstance(whole, bool):
            (self._units if whole else self._elements)(b, lds, row0, k0, rows, ks, tid)
            return
        br = b.if_(whole)
        with br.then_():
            self._units(b, lds, row0, k0, rows, ks, tid)
        with br.else_():
            self._elements(b, lds, row0, k0, rows, ks, tid)

    def _whole_units(self, b, rows, ks):
        """Whether every unit lies wholly inside or outside rows x ks: the
        bound along the contiguous index, and `ld`, multiples of a unit. A
        bool where both are constants, else an i1."""
        per = self.layout.unit_elems
        bound = ks if self.contiguous == "k" else rows
        sizes = [bound] if self.ld is bound else [bound, self.ld]
        if any(isinstance(x, int) and x % per for x in sizes):
            return False
        checks = [b.cmp("eq", b.urem(x, per), 0) for x in sizes if not isinstance(x, int)]
        whole = checks[0] if checks else True
        for check in checks[1:]:
            whole = b.and_(whole, check)
        return whole

    def _units(self, b, lds, row0, k0, rows, ks, tid):
        """`load`'s moves and `store`, each 16-byte unit read through a buffer
        from UNCHECKED (zeros) where it lies outside rows x ks."""
        eb, vec = self.elem.nbytes, self._vector
        rsrc = b.buffer_rsrc(self.src, UNCHECKED)

        def unit(at, inside):
            return b.buffer_load(rsrc, b.select(inside, b.mul(at, eb), UNCHECKED), vec)

        regs = []
        for row, k in self._moves(b, tid):
            r, kk = b.add(row0, row), b.add(k0, k)
            in_rows, in_k = b.cmp("lt", r, rows), b.cmp("lt", kk, ks)
            if self.contiguous == "k":
                regs.append(unit(b.add(b.mul(r, self.ld), kk), b.and_(in_rows, in_k)))
            else:
                base = b.add(b.mul(kk, self.ld), r)
                regs.append(unit(base, b.and_(in_rows, in_k)))
                regs.append(unit(b.add(base, self.ld), b.and_(in_rows, b.cmp("lt", b.add(kk, 1), ks))))
        self.store(b, lds, regs, tid)

    def _elements(self, b, lds, row0, k0, rows, ks, tid):
        """Copy the tile at (row0, k0) element by element; zero outside rows x ks of the source."""
        n_rows, n_k = self.layout.rows, self.layout.k
        zero = b.const(0.0 if self.elem.is_float else 0, self.elem)
        with b.for_range(tid, n_rows * n_k, self.threads) as loop:
            q = loop.iv
            if self.contiguous == "k":  # consecutive lanes read consecutive source elements
                row, k = b.udiv(q, n_k), b.urem(q, n_k)
                at = b.add(b.mul(b.add(row0, row), self.ld), b.add(k0, k))
            else:
                k, row = b.udiv(q, n_rows), b.urem(q, n_rows)
                at = b.add(b.mul(b.add(k0, k), self.ld), b.add(row0, row))
            inside = b.and_(b.cmp("lt", b.add(row0, row), rows), b.cmp("lt", b.add(k0, k), ks))
            br = b.if_(inside, [self.elem])
            with br.then_():
                b.yield_(b.load(b.offset(self.src, b.mul(at, self.elem.nbytes)), self.elem))
            with br.else_():
                b.yield_(zero)
            b.store(b.offset(lds, self.layout.offset(b, row, k)), br.results[0])


@dataclasses.dataclass(frozen=True)
class DirectCopy:
    """A whole tile from global memory straight to LDS (buffer.load_to_lds):
    `layout` (lds.KMajor or lds.RowXor) has unit_at, and its units are
    contiguous in the source along its k (`ld` apart from row to row)."""

    src: object  # global pointer
    ld: object  # leading dimension in elements (i32 value or int)
    layout: object
    elem: object
    threads: int

    def __post_init__(self):
        if self.layout.nbytes % (self.threads * UNIT):
            raise FieldError(
                f"DirectCopy: expected a tile of whole {self.threads * UNIT}-byte rounds ({self.threads} lanes of {UNIT} bytes), got {self.layout.nbytes} bytes",
                "DirectCopy",
                {"nbytes": self.layout.nbytes, "threads": self.threads},
            )

    @property
    def rounds(self):
        return self.layout.nbytes // (self.threads * UNIT)

    def lanes(self, b, tid):
        """(the source as a buffer, the byte offset from the tile's origin of
        the unit this lane fetches in each round: the one stored in slot tid +
        round * threads). The same for every tile: computed once, before the loop."""
        offsets = []
        for r in range(self.rounds):
            row, k = self.layout.unit_at(b, b.add(tid, r * self.threads))
            offsets.append(b.mul(b.add(b.mul(row, self.ld), k), self.elem.nbytes))
        return b.buffer_rsrc(self.src, UNCHECKED), offsets

    def issue(self, b, lds, lanes, row0, k0, wave_at):
        """Start copying the tile at (row0, k0) to `lds`; `lanes` from lanes(),
        `wave_at` the byte offset of this wave's first slot (wave-uniform).
        The tile's origin is the load's wave-uniform offset (an SGPR): the
        loop's only address arithmetic is scalar (a full per-lane global
        address cost 3-5 vector instructions per load an iteration).
        Asynchronous: a barrier must come between this and reading the tile."""
        rsrc, offsets = lanes
        origin = b.mul(b.add(b.mul(row0, self.ld), k0), self.elem.nbytes)
        for r, at in enumerate(offsets):
            b.buffer_load_to_lds(rsrc, at, origin, b.offset(lds, b.add(wave_at, r * self.threads * UNIT)))
