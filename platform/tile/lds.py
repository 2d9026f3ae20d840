"""The LDS layout of a GEMM operand tile: K-major, XOR-swizzled by 16-byte units.

A tile holds `rows` rows (the M index of A, the N index of B) of `k`
elements each, k contiguous, so that a lane's fragment (one row, several
consecutive k) is one 16-byte read. Unswizzled, the rows of a fragment read
(consecutive rows, same k) would fall on the same banks; so the tile is seen
as lines of `line_bytes` (banks * bank bytes: what one pass of the LDS serves)
split into 16-byte units, and unit u of line L is stored at u ^ s(L) with
s(L) = (L ^ (L // units_per_row)) mod units_per_line:
  - the L term spreads the lines a fragment read touches (consecutive rows)
    over different units;
  - the L // units_per_row term spreads the rows the B copy's transposing
    writes touch (rows 8 apart, one dword each) over different units.
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
    def period_rows(self):
        """Rows after which the swizzle repeats (s has a period of units_per_line lines)."""
        return self.line_bytes // UNIT * self.line_bytes // (self.k * self.elem_bytes) or 1

    def offsets(self, b, row, k, steps):
        """Byte offsets of (row + d, k) for each d in `steps`, as i32 values: one
        computation, plus a constant for every d that is a multiple of the period."""
        base = self.offset(b, row, k)
        return [b.add(base, d * self.k * self.elem_bytes) if d % self.period_rows == 0 else self.offset(b, b.add(row, d), k) for d in steps]

    def offset(self, b, row, k):
        """Byte offset of element (row, k), as an i32 value; `k` is an IR value or an int."""
        units_row = self.k * self.elem_bytes // UNIT
        units_line = self.line_bytes // UNIT
        byte_k = b.mul(k, self.elem_bytes)
        unit = b.add(b.mul(row, units_row), b.div(byte_k, UNIT))  # flat unit index
        line = b.div(unit, units_line)
        swizzle = b.rem(b.xor(line, b.shl(line, 1)), units_line)
        inside = b.xor(b.rem(unit, units_line), swizzle)
        return b.add(b.add(b.mul(line, self.line_bytes), b.mul(inside, UNIT)), b.rem(byte_k, UNIT))
