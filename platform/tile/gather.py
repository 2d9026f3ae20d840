"""A GEMM operand tile gathered from global memory: addresses from a callback.

An implicit GEMM (a convolution's A, whose rows are output pixels and whose
k runs over channels and filter taps) has no leading dimension: element
(row, k) lives wherever the problem says, or nowhere (the padding, which
reads as zero). `Gather.address(b, row, k)` gives the element index of
(row, k) in the source (i32) and an i1 that is false where the element is
padding (None: never). The tile lands in LDS K-major (lds.KMajor), like
copy.TileCopy's k-contiguous tiles, whose moves and LDS writes it reuses.

`Gather.contiguous` says which index a run follows: "k" (the default; the
copy's moves are 16-byte units of k, as copy.TileCopy's k-contiguous ones)
or "rows" (units of rows, two k at a time, transposed on the way to LDS as
TileCopy's rows-contiguous ones: a convolution's weight gradient gathers
its input as B, whose consecutive columns are consecutive channels).
`Gather.runs` says whether every aligned run of one 16-byte unit along it
(the index a multiple of the unit's elements) is consecutive in memory and
padding or not as a whole: then `load` issues one 16-byte load per unit, at
the run's first address, through a buffer whose range check reads zeros
where the unit is padding (its offset copy.UNCHECKED: no select after the
load); otherwise one load per element, each with its own mask. Both `load` (a tile inside rows x k) and
`guarded` (an edge tile) keep the padding mask: a gathered tile is never
unguarded.

`Gather.stepped` (optional, with runs) gives `load` the fast loop's
addresses in parts, so that no per-lane division or select is left in the
loop: `stepped(b, row, k0, k)` is the byte offset of unit (row, k0 + k),
with k0 the tile's first k (wave-uniform: the loop's only varying input)
and row and k the lane's own (fixed over the loop), and `load` reads it
through a buffer of `extent` bytes over the source (rows-contiguous: each
move's two units, k and k + 1). The callback puts a
padded unit's offset at or past `extent` (PADDING_BIT), where the buffer's
range check reads zeros: no select after the load, which would wait for
it at once. `guarded` still uses `address`.

`Gather.patch` (optional, with stepped) is for runs that are padding only
in part (a convolution's row of filter taps, some of them left or right of
the image): `patch(b, row, k)` gives the lane's unit (row, k0 + k) a mask
of i32 words, fixed over the loop, that `load` ANDs with what it read (no
select, no wait at the load). `Gather.fast_from` and `Gather.fast_to`
(rows; fast_to 0: no limit) bound the rows whose stepped loads are safe
(none starts before the buffer, none has a dword past its end that holds
an element inside it): the main loop sends a block that begins before
fast_from or ends after fast_to through `guarded`.
"""

import dataclasses
from typing import Callable

from errors.errors import FieldError
from ir import types as T
from tile.copy import UNCHECKED, TileCopy

# A stepped offset with this bit set is past any extent (at most UNCHECKED =
# 2**31 - 1 bytes): a padded unit's offset ORed with it reads zeros.
PADDING_BIT = 31


@dataclasses.dataclass(frozen=True)
class Gather:
    address: Callable  # (builder, row value, k value) -> (element index i32, valid i1 or None)
    runs: bool  # aligned 16-byte runs along `contiguous` are consecutive in memory and share their validity
    contiguous: str = "k"  # the index runs follow: "k" or "rows"
    stepped: Callable | None = None  # (builder, row value, k0 value, k value) -> byte offset i32
    extent: int = 0  # bytes of the buffer `stepped`'s offsets index, 1 .. UNCHECKED
    patch: Callable | None = None  # (builder, row value, k value) -> the unit's i32 words mask, fixed over the loop
    fast_from: int = 0  # the first row `load` may read: a block before it goes through `guarded`
    fast_to: int = 0  # rows from it on `load` may not read (0: none): a block past it goes through `guarded`


@dataclasses.dataclass(frozen=True)
class GatherCopy(TileCopy):
    """TileCopy's moves and LDS writes (k- or rows-contiguous, as the gather's runs); global addresses from `gather`."""

    gather: Gather | None = None

    def __post_init__(self):
        if not isinstance(self.gather, Gather):
            raise FieldError(
                f"GatherCopy: expected a tile.gather.Gather, got {self.gather!r}",
                "GatherCopy",
                {"gather": None if self.gather is None else repr(self.gather)},
            )
        if self.contiguous != self.gather.contiguous:
            raise FieldError(
                f"GatherCopy: expected contiguous {self.gather.contiguous!r} (the tile is gathered by {self.gather.contiguous} runs), got {self.contiguous!r}",
                "GatherCopy",
                {"contiguous": self.contiguous},
                [self.gather.contiguous],
            )
        stepped = self.gather.stepped
        if stepped is not None and not self.gather.runs:
            raise FieldError(
                "GatherCopy: a stepped gather loads whole runs, got runs=False; give it runs=True or no stepped",
                "GatherCopy",
                {"runs": self.gather.runs},
                [True],
            )
        if self.gather.patch is not None and (stepped is None or self.contiguous != "k"):
            raise FieldError(
                "GatherCopy: a patch masks a stepped gather's units along k, got a patch without stepped or contiguous 'rows'; give it stepped and contiguous 'k' or no patch",
                "GatherCopy",
                {"patch": "a patch"},
            )
        if stepped is not None and not 0 < self.gather.extent <= UNCHECKED:
            raise FieldError(
                f"GatherCopy: expected a stepped gather's extent in 1 .. {UNCHECKED} bytes, got {self.gather.extent}",
                "GatherCopy",
                {"extent": self.gather.extent},
            )
        super().__post_init__()

    def _element(self, b, row, k):
        """The element at (row, k), zero where it is padding: a load from a safe address (index 0) there."""
        index, valid = self.gather.address(b, row, k)
        if valid is None:
            return b.load(b.offset(self.src, b.mul(index, self.elem.nbytes)), self.elem)
        value = b.load(b.offset(self.src, b.mul(b.select(valid, index, 0), self.elem.nbytes)), self.elem)
        return b.select(valid, value, b.const(0.0 if self.elem.is_float else 0, self.elem))

    def _unit(self, b, row, k, rsrc):
        """One 16-byte unit from (row, k) on, along `contiguous`. A run with a padding mask
        reads through `rsrc` (a buffer of UNCHECKED bytes over the source) from UNCHECKED,
        zeros, where it is padding: no select after the load, which would wait for it at once."""
        if self.gather.runs:
            index, valid = self.gather.address(b, row, k)
            if valid is None:
                return b.load(b.offset(self.src, b.mul(index, self.elem.nbytes)), self._vector)
            return b.buffer_load(rsrc, b.select(valid, b.mul(index, self.elem.nbytes), UNCHECKED), self._vector)
        if self.contiguous == "k":
            return b.build([self._element(b, row, b.add(k, j)) for j in range(self.layout.unit_elems)])
        return b.build([self._element(b, b.add(row, j), k) for j in range(self.layout.unit_elems)])

    def load(self, b, row0, k0, tid):
        """Registers holding the tile at (row0, k0), which lies inside the problem; padding reads zero.
        Rows-contiguous: two units per move, k and k + 1, as TileCopy.store takes them."""
        if self.gather.stepped is not None:
            rsrc = b.buffer_rsrc(self.src, self.gather.extent)
            k0 = b.const(k0, T.I32) if isinstance(k0, int) else k0  # the callback's k0 is always a value
            regs = []
            for row, k in self._moves(b, tid):
                r = b.add(row0, row)
                regs.append(b.buffer_load(rsrc, self.gather.stepped(b, r, k0, k), self._vector))
                if self.gather.patch is not None:
                    words = T.vector(T.I32, self.layout.unit_elems * self.elem.nbytes // 4)
                    masked = b.and_(b.bitcast(regs[-1], words), self.gather.patch(b, r, k))
                    regs[-1] = b.bitcast(masked, self._vector)
                if self.contiguous == "rows":
                    regs.append(b.buffer_load(rsrc, self.gather.stepped(b, r, k0, b.add(k, 1)), self._vector))
            return regs
        rsrc = b.buffer_rsrc(self.src, UNCHECKED) if self.gather.runs else None
        regs = []
        for row, k in self._moves(b, tid):
            r, kk = b.add(row0, row), b.add(k0, k)
            regs.append(self._unit(b, r, kk, rsrc))
            if self.contiguous == "rows":
                regs.append(self._unit(b, r, b.add(kk, 1), rsrc))
        return regs

    def guarded(self, b, lds, row0, k0, rows, ks, tid):
        """Copy the tile at (row0, k0) element by element; zero outside rows x ks and in the padding."""
        n_rows, n_k = self.layout.rows, self.layout.k
        zero = b.const(0.0 if self.elem.is_float else 0, self.elem)
        with b.for_range(tid, n_rows * n_k, self.threads) as loop:
            row, k = b.udiv(loop.iv, n_k), b.urem(loop.iv, n_k)
            r, kk = b.add(row0, row), b.add(k0, k)
            inside = b.and_(b.cmp("lt", r, rows), b.cmp("lt", kk, ks))
            br = b.if_(inside, [self.elem])
            with br.then_():
                b.yield_(self._element(b, r, kk))
            with br.else_():
                b.yield_(zero)
            b.store(b.offset(lds, self.layout.offset(b, row, k)), br.results[0])
