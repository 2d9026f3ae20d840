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
"""

import dataclasses

UNIT = 16  # bytes: the widest LDS access (ds_read_b128)


@dataclasses.dataclass(frozen=True)
class KMajor:
    rows: int
    k: int
    elem_bytes: int
    line_bytes: int

    def __post_init__(self):
        row = self.k * self.elem_bytes
        if row % UNIT:
            raise ValueError(f"KMajor: expected rows of whole {UNIT}-byte units, got {self.k} elements of {self.elem_bytes} bytes")
        units = self.line_bytes // UNIT
        if self.line_bytes % UNIT or units & (units - 1):  # the XOR must stay inside the line
            raise ValueError(f"KMajor: expected a line of a power of two {UNIT}-byte units, got {self.line_bytes} bytes")

    @property
    def nbytes(self):
        return self.rows * self.k * self.elem_bytes

    @property
    def unit_elems(self):
        return UNIT // self.elem_bytes

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
        x = b.rem(line, self._period_lines)
        return b.rem(b.xor(x, b.shl(x, 1)), self._units[1])

    def offsets(self, b, row, k, steps):
        """Byte offsets of (row + d, k) for each d in `steps`, as i32 values: one
        computation, plus a constant for every d that is a multiple of the period."""
        base = self.offset(b, row, k)
        return [b.add(base, d * self.k * self.elem_bytes) if d % self.period_rows == 0 else self.offset(b, b.add(row, d), k) for d in steps]

    def offset(self, b, row, k):
        """Byte offset of element (row, k), as an i32 value; `k` is an IR value or an int."""
        units_row, units_line = self._units
        byte_k = b.mul(k, self.elem_bytes)
        unit = b.add(b.mul(row, units_row), b.div(byte_k, UNIT))  # flat unit index
        line = b.div(unit, units_line)
        swizzle = self._swizzle(b, line)
        inside = b.xor(b.rem(unit, units_line), swizzle)
        return b.add(b.add(b.mul(line, self.line_bytes), b.mul(inside, UNIT)), b.rem(byte_k, UNIT))


@dataclasses.dataclass(frozen=True)
class Padded:
    """Rows of `k` contiguous elements, each row followed by `pad` bytes (the
    B tile k-rows x n for transposed fragment reads)."""

    rows: int
    k: int
    elem_bytes: int
    pad: int

    @property
    def pitch(self):
        return self.k * self.elem_bytes + self.pad

    @property
    def nbytes(self):
        return self.rows * self.pitch

    @property
    def unit_elems(self):
        return UNIT // self.elem_bytes

    def offset(self, b, row, k):
        return b.add(b.mul(row, self.pitch), b.mul(k, self.elem_bytes))
