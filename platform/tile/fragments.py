"""How platform/tile lays matrix-core fragments out across a wave's lanes.

For an op id on an arch family, lane l's A fragment is row (l % rows) of the
A tile and `per_lane` consecutive k starting at ((l // rows) % groups) *
per_lane; B is the same with columns. Consecutive k let a lane read its A
fragment from LDS with one vector load. For gfx12 and gfx1250 this k order
differs from the ISA's (see platform/interp/layouts.py) by a permutation of K
applied to A and B alike, which leaves D = A*B + C unchanged: fragments_test
proves that against AMD's own tables (platform/interp/testdata).

C/D fragments have no such freedom: `c` gives (row, col) of lane l's element
v exactly as the hardware places them.
"""

import dataclasses


@dataclasses.dataclass(frozen=True)
class Fragment:
    rows: int  # lanes per k group (the M or N extent one group covers)
    groups: int  # k groups across the wave (1: lanes repeat, as on gfx11)
    per_lane: int  # consecutive k per lane
    c: object  # (builder, lane value, v) -> (row value, col value)

    def origin(self, b, lane):
        """(row, k) values: lane's A fragment is that row of the A tile at k, k+1, ...;
        its B fragment is that column of the B tile at the same k."""
        return b.rem(lane, self.rows), b.mul(b.rem(b.div(lane, self.rows), self.groups), self.per_lane)


def _c_gfx9_16(b, l, v):
    return b.add(b.mul(b.div(l, 16), 4), v), b.rem(l, 16)


def _c_gfx9_32(b, l, v):
    return b.add(b.mul(b.div(l, 32), 4), 8 * (v // 4) + v % 4), b.rem(l, 32)


def _c_gfx11(b, l, v):
    return b.add(b.div(l, 16), 2 * v), b.rem(l, 16)


def _c_gfx12(b, l, v):
    return b.add(b.mul(b.div(l, 16), 8), v), b.rem(l, 16)


FRAGMENTS = {
    ("mma_16x16x16_f16_f32", "gfx9"): Fragment(16, 4, 4, _c_gfx9_16),
    ("mma_16x16x16_bf16_f32", "gfx9"): Fragment(16, 4, 4, _c_gfx9_16),
    ("mma_32x32x8_f16_f32", "gfx9"): Fragment(32, 2, 4, _c_gfx9_32),
    ("mma_32x32x8_bf16_f32", "gfx9"): Fragment(32, 2, 4, _c_gfx9_32),
    ("mma_16x16x32_f16_f32", "gfx9"): Fragment(16, 4, 8, _c_gfx9_16),
    ("mma_16x16x32_bf16_f32", "gfx9"): Fragment(16, 4, 8, _c_gfx9_16),
    ("mma_16x16x16_f16_f32", "gfx11"): Fragment(16, 1, 16, _c_gfx11),
    ("mma_16x16x16_bf16_f32", "gfx11"): Fragment(16, 1, 16, _c_gfx11),
    ("mma_16x16x16_f16_f32", "gfx12"): Fragment(16, 2, 8, _c_gfx12),
    ("mma_16x16x16_bf16_f32", "gfx12"): Fragment(16, 2, 8, _c_gfx12),
    ("mma_16x16x32_f16_f32", "gfx1250"): Fragment(16, 2, 16, _c_gfx12),
    ("mma_16x16x32_bf16_f32", "gfx1250"): Fragment(16, 2, 16, _c_gfx12),
}
