"""The tile each arch runs a GEMM with: one table, one row per arch.

A row is the matrix-core shape and the workgroup's block and waves; a spec
(gemm.spec.GemmSpec) carries them, so a case names its tile. Every row is a
128 x 128 block with a 32-deep k step (the tile rocke is measured on against
Triton, issue 9): 4 waves of 64 lanes on CDNA, 8 of 32 on RDNA4 and gfx1250.
gfx950 and gfx1250 take their K=32 matrix op (gfx950's is also its only fp8
one, f8e4m3); gfx942 and gfx1201 the 16x16x16 one.
"""

import dataclasses

from gemm.spec import GemmSpec


@dataclasses.dataclass(frozen=True)
class Tile:
    mma: str
    block_m: int
    block_n: int
    block_k: int
    waves_m: int
    waves_n: int


TILES = {
    "gfx942": Tile("16x16x16", 128, 128, 32, 2, 2),
    "gfx950": Tile("16x16x32", 128, 128, 32, 2, 2),
    "gfx1201": Tile("16x16x16", 128, 128, 32, 2, 4),
    "gfx1250": Tile("16x16x32", 128, 128, 32, 2, 4),
}


class TileError(ValueError):
    """No tile for the arch asked for."""


def spec_for(arch, m, n, k, dtype, out, **options):
    """The GemmSpec of a problem on `arch` with that arch's tile; `options`
    are GemmSpec's optional fields (layout_a, layout_b, bias_relu)."""
    if arch not in TILES:
        raise TileError(f"gemm tiles: expected an arch with a tile, one of {', '.join(TILES)}, got {arch!r}; add a row to library/gemm/tiles.py")
    return GemmSpec(m, n, k, dtype, out, **dataclasses.asdict(TILES[arch]), **options)
