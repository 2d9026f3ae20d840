"""The tile each arch runs attention with: one table, one row per arch and head dim.

A row is the matrix op, the query rows a workgroup computes (block_m, split
over `waves` waves), and the keys of one step of the K/V loop (block_n).
Triton's tutorial kernel, the yardstick (issue 20), runs BLOCK_M = 128 and
BLOCK_N = 64 on every arch, and so do these rows but one. At d64, 8 waves
of 16 query rows each (512 lanes on CDNA, 256 on RDNA4): 4 waves of 32 rows
hold twice the accumulators, and on gfx942 (llvm23) spill SGPRs and lose
occupancy. At d128 on CDNA, 4 waves of 32 rows (two 16-row query tiles a
wave): each K and V fragment read from LDS feeds both tiles' matrix ops,
half the LDS reads per MAC of 16-row waves. gfx1201 at d128 takes 32 keys
a step: with 64, its wave32 lanes hold twice the scores and LLVM spills the
causal kernel (catalog/llama_attention.json). The registers and occupancy
each row gets are in docs/figures/attention-isa.md. Every row uses the
16x16x16 op: its accumulator tile is the B operand of the next product
without a lane exchange (tile/softmax.py).

The rows are data, tiles.json beside this file, in the order errors list
them; the planner's --explain quotes the row it takes.
"""

import json
import os

from attention.spec import AttentionSpec
from errors.errors import FieldError

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiles.json")
TILE_FIELDS = ("mma", "block_m", "block_n", "waves")


def _load(path):
    """(arch, head_dim) -> {mma, block_m, block_n, waves}, in the file's order."""
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)["tiles"]
    table = {}
    for i, row in enumerate(rows):
        key = (row["arch"], row["head_dim"])
        if key in table:
            raise ValueError(f"{path}: expected one row per arch and head dim, got a second {key[0]} d{key[1]}")
        for field in ("block_m", "block_n", "waves"):
            value = row[field]
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{path}: tiles[{i}].{field}: expected a positive int, got {value!r}")
        table[key] = {field: row[field] for field in TILE_FIELDS}
    return table


# (arch, head_dim) -> the tile's fields.
TILES = _load(PATH)


class TileError(FieldError):
    """No tile for the arch and head dim asked for."""


def tile_for(arch, head_dim):
    """The table's tile fields for `arch` and `head_dim`; TileError naming what the table offers."""
    if (arch, head_dim) not in TILES:
        offered = ", ".join(f"{a} d{d}" for a, d in TILES)
        raise TileError(
            f"attention tiles: expected an arch and head dim with a tile ({offered}), got {arch} d{head_dim}; "
            "add a row to library/attention/tiles.json",
            "attention tiles",
            [arch, head_dim],
            [list(key) for key in TILES],
        )
    return TILES[(arch, head_dim)]


def spec_for(arch, batch, heads, kv_heads, seq_q, seq_k, head_dim, dtype, **options):
    """The AttentionSpec of a problem on `arch` with the table's tile for it; `options` are
    AttentionSpec's optional fields (causal, mask, scale, layout, lse)."""
    return AttentionSpec(batch, heads, kv_heads, seq_q, seq_k, head_dim, dtype, **tile_for(arch, head_dim), **options)
