"""The tile each arch runs a GEMM with: one table, one row per arch and input type.

A row is a tile.tile.Tile (the matrix-core shape and the workgroup's block
and waves); a spec (gemm.spec.GemmSpec) embeds it, so a case names its tile. Every row is a
128 x 128 block with a 32-deep k step (the tile rocke is measured on against
Triton, issue 9): 4 waves of 64 lanes on CDNA, 8 of 32 on RDNA4 and gfx1250.
The matrix op is each arch's best for the type, by `rocke isa` on llvm23
(docs/figures/gemm-isa.md): gfx950's 32x32x16 (its 16x16x32 takes more
VGPRs, for a lower occupancy), and for fp8 (f8e4m3, gfx950 only) its one
op, 16x16x32; gfx1250's 16x16x32; 16x16x16 on gfx942 and gfx1201.

The rows are data, tiles.json beside this file, in the order errors list
them; the C++ mirror (library/gemm/cpp) reads the same file.
"""

import json
import os

from errors.errors import FieldError
from gemm.spec import GemmSpec
from tile.tile import Tile

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiles.json")


def _load(path):
    """(arch, input type) -> Tile, in the file's order."""
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)["tiles"]
    table = {}
    for i, row in enumerate(rows):
        key = (row["arch"], row["dtype"])
        if key in table:
            raise ValueError(f"{path}: expected one row per arch and input type, got a second {key[0]} {key[1]}")
        table[key] = Tile.of(row, f"{path}: tiles[{i}]", FieldError)
    return table


# (arch, input type) -> Tile.
TILES = _load(PATH)


class TileError(FieldError):
    """No tile for the arch and input type asked for."""


def spec_for(arch, m, n, k, dtype, out, **options):
    """The GemmSpec of a problem on `arch` with the table's tile for it;
    `options` are GemmSpec's optional fields (layout_a, layout_b and the epilogue's: bias, activation, residual, scale)."""
    if (arch, dtype) not in TILES:
        offered = ", ".join(f"{a} {d}" for a, d in TILES)
        raise TileError(
            f"gemm tiles: expected an arch and input type with a tile ({offered}), got {arch} {dtype}; add a row to library/gemm/tiles.json",
            "gemm tiles",
            [arch, dtype],
            list(TILES),
        )
    return GemmSpec(m, n, k, dtype, out, TILES[(arch, dtype)], **options)
