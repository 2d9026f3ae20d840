"""The LDS layout of a GEMM operand tile: K-major, XOR-swizzled by 16-byte units.

A tile holds `rows` rows (the M index of A, the N index of B) of `k`
elements each, k contiguous, so that a lane's fragment (one row, several
consecutive k) is one 16-byte read. Unswizzled, the rows of a fragment read
(consecutive rows, same k) would fall on the same banks; so the tile is seen
as lines of `line_bytes` (banks * bank bytes: what one pass of the LDS serves)
split into 16-byte units (C per row, U per line), and unit u of line L is
stored at u ^ s(L), where
    x = L mod P,  s(L) = (x ^ 2x) mod U,  P = max(C, E) lines
with E the elements per unit (the rows one B-copy vector covers):
  - x's low bits spread the lines that a fragment read's consecutive rows
    fall in over the units of a row (reads: rows r, r+1, ... at one k);
  - 2x's bits spread the rows that the B copy's transposing writes touch
    (one dword in each of E consecutive rows, the lanes of a pass E rows
    apart, so lines 2 or 4 apart) over the row slots of a line.
s has a period of P lines, so rows a multiple of period_rows apart differ
by a constant offset (fragment rows 16 or 32 apart share one address
register).
Bytes inside a unit are never moved, so any read of at most 16 bytes that
does not cross a unit stays one read. platform/isa/banks.py's model of the
GEMM kernels checks the result (tile/gemm_banks_test.py): no conflicts.

Copies that fill LDS slot after slot (copy.DirectCopy: direct-to-LDS loads,
each lane 16 bytes at its wave's address + 16 * lane) ask the layout which
unit each 16-byte slot holds: unit_at, the inverse of offset. Two other
layouts hold gfx950's B as k-rows for its transposed reads: Padded (rows
padded, for copies through registers) and RowXor (rows XOR-swizzled, for
direct loads, which cannot skip a pad).
"""

import dataclasses

from errors.errors import FieldError

UNIT = 16  # bytes: the widest LDS access (ds_read_b128)


@dataclasses.dataclass(frozen=True)
class _Rows:
    """What every tile layout is: `rows` rows of `k` elements of `elem_bytes`,
    each row `pitch` bytes apart, read and written in 16-byte units."""

    rows: int
    k: int
    elem_bytes: int

    @property
    def pitch(self):
        return self.k * self.elem_bytes

    @property
    def nbytes(self):
        return self.rows * self.pitch

    @property
    def unit_elems(self):
        return UNIT // self.elem_bytes


@dataclasses.dataclass(frozen=True)
class KMajor(_Rows):
    line_bytes: int

    def __post_init__(self):
        row = self.k * self.elem_bytes
        if row % UNIT:
            raise FieldError(
                f"KMajor: expected rows of whole {UNIT}-byte units, got {self.k} elements of {self.elem_bytes} bytes",
                "KMajor",
                {"k": self.k, "elem_bytes": self.elem_bytes},
            )
        units = self.line_bytes // UNIT
        if self.line_bytes % UNIT or units & (units - 1):  # the XOR must stay inside the line
            raise FieldError(
                f"KMajor: expected a line of a power of two {UNIT}-byte units, got {self.line_bytes} bytes",
                "KMajor",
                {"line_bytes": self.line_bytes},
            )

    @property
    def _units(self):
        """(C, U): 16-byte units per row and per line."""
        return self.k * self.elem_bytes // UNIT, self.line_bytes // UNIT

    @property
    def _period_lines(self):
        c, _ = self._units
        return max(c, self.unit_elems)

    @property
    def period_rows(self):
        """Rows after which the swizzle repeats (a whole number: lines and rows are powers of two)."""
        c, u = self._units
        return max(1, self._period_lines * u // c)

    def _swizzle(self, b, line):
        x = b.urem(line, self._period_lines)
        return b.urem(b.xor(x, b.shl(x, 1)), self._units[1])

    def offsets(self, b, row, k, steps):
        """Byte offsets of (row + d, k) for each d in `steps`, as i32 values: one
        computation, plus a constant for every d that is a multiple of the period."""
        base = self.offset(b, row, k)
        return [
            b.add(base, d * self.k * self.elem_bytes) if d % self.period_rows == 0 else self.offset(b, b.add(row, d), k)
            for d in steps
        ]

    def offset(self, b, row, k):
        """Byte offset of element (row, k), as an i32 value; `k` is an IR value or an int."""
        units_row, units_line = self._units
        byte_k = b.mul(k, self.elem_bytes)
        unit = b.add(b.mul(row, units_row), b.udiv(byte_k, UNIT))  # flat unit index
        line = b.udiv(unit, units_line)
        swizzle = self._swizzle(b, line)
        inside = b.xor(b.urem(unit, units_line), swizzle)
        return b.add(b.add(b.mul(line, self.line_bytes), b.mul(inside, UNIT)), b.urem(byte_k, UNIT))

    def unit_at(self, b, slot):
        """(row, k) of the unit stored in 16-byte slot `slot` (an i32 value):
        the inverse of `offset`, for copies that fill LDS slot by slot
        (copy.DirectCopy). The XOR is its own inverse."""
        units_row, units_line = self._units
        line = b.udiv(slot, units_line)
        unit = b.add(b.mul(line, units_line), b.xor(b.urem(slot, units_line), self._swizzle(b, line)))
        return b.udiv(unit, units_row), b.mul(b.urem(unit, units_row), self.unit_elems)


@dataclasses.dataclass(frozen=True)
class Padded(_Rows):
    """Rows of `k` contiguous elements, each row followed by `pad` bytes (the
    B tile k-rows x n for transposed fragment reads)."""

    pad: int

    @property
    def pitch(self):
        return self.k * self.elem_bytes + self.pad

    def offset(self, b, row, k):
        return b.add(b.mul(row, self.pitch), b.mul(k, self.elem_bytes))


@dataclasses.dataclass(frozen=True)
class RowXor(_Rows):
    """Rows of `k` contiguous elements, each a whole number of lines, whose
    16-byte units are XOR-swizzled in runs of `run` bytes: unit u of row r
    is stored at u ^ (r mod (line / run)) * (run / 16). The B tile as k-rows
    x n, filled by direct-to-LDS loads (copy.DirectCopy: no gaps, unlike
    Padded's) and read transposed (gemm.py): a run is what one 16-lane
    group's transposed read takes of a row, and the line / run rows of a
    read pass land on distinct banks, as Padded's pad of one run shifted
    them. Bytes inside a run keep their order, so an 8-byte read stays one."""

    line_bytes: int
    run: int

    def __post_init__(self):
        row = self.k * self.elem_bytes
        if row % self.line_bytes or self.line_bytes % self.run or self.run % UNIT:
            raise FieldError(
                f"RowXor: expected rows of whole {self.line_bytes}-byte lines and a line of whole runs of whole {UNIT}-byte units, got rows of {row} bytes and runs of {self.run}",
                "RowXor",
                {"row_bytes": row, "line_bytes": self.line_bytes, "run": self.run},
            )

    def _swizzle(self, b, row):
        return b.mul(b.urem(row, self.line_bytes // self.run), self.run // UNIT)

    def offset(self, b, row, k):
        """Byte offset of element (row, k), as an i32 value."""
        byte_k = b.mul(k, self.elem_bytes)
        unit = b.xor(b.udiv(byte_k, UNIT), self._swizzle(b, row))
        return b.add(b.add(b.mul(row, self.k * self.elem_bytes), b.mul(unit, UNIT)), b.urem(byte_k, UNIT))

    def unit_at(self, b, slot):
        """(row, k) of the unit stored in 16-byte slot `slot` (KMajor.unit_at)."""
        units_row = self.k * self.elem_bytes // UNIT
        row = b.udiv(slot, units_row)
        return row, b.mul(b.xor(b.urem(slot, units_row), self._swizzle(b, row)), self.unit_elems)
