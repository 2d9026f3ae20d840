"""The tile each arch normalises a row with: one table, rows per arch by the longest dim they take.

A row is the workgroup that takes one row of the problem (`threads`) and the
elements each lane holds in registers (`per_lane`); the first row of the
arch whose max_dim is at least the problem's dim is taken, and the arch's
last row (max_dim null) takes every longer one. A dim up to threads *
per_lane is read once (the row stays in registers from the load to the
store); past it the kernel goes chunk by chunk, twice (library/norm/norm.py).
The line is 1024 * 32 = 32768 elements on every arch here: 16 waves of 64
lanes (gfx942, gfx950) or 32 of 32 (gfx1201, gfx1250), 32 f32 values a lane. Small
dims take one wave: a 768- or 1024-wide row is 2 16-byte vectors a lane
(f16), with no LDS and no barrier in its reductions (tile.rows).

The rows are data, tiles.json beside this file, in the order errors list
them; the planner's --explain quotes the row it takes.
"""

import json
import os

from errors.errors import FieldError
from norm.spec import NormSpec

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiles.json")
TILE_FIELDS = ("threads", "per_lane")


def _load(path):
    """arch -> [(max_dim or None, {threads, per_lane})], in the file's order."""
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)["tiles"]
    table = {}
    for i, row in enumerate(rows):
        arch, top = row["arch"], row["max_dim"]
        previous = table.setdefault(arch, [])
        if previous and (previous[-1][0] is None or (top is not None and top <= previous[-1][0])):
            raise ValueError(f"{path}: tiles[{i}]: expected {arch}'s rows in increasing max_dim, ending with null")
        for field in TILE_FIELDS:
            value = row[field]
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{path}: tiles[{i}].{field}: expected a positive int, got {value!r}")
        previous.append((top, {field: row[field] for field in TILE_FIELDS}))
    for arch, arch_rows in table.items():
        if arch_rows[-1][0] is not None:
            raise ValueError(f"{path}: expected {arch}'s last row to have max_dim null (every longer dim)")
    return table


# arch -> its rows.
TILES = _load(PATH)


class TileError(FieldError):
    """No tile for the arch asked for."""


def tile_for(arch, dim):
    """The table's tile fields for `arch` and `dim`; TileError naming the archs the table has."""
    if arch not in TILES:
        raise TileError(
            f"norm tiles: expected an arch with tiles ({', '.join(TILES)}), got {arch}; "
            "add its rows to library/norm/tiles.json",
            "norm tiles",
            arch,
            list(TILES),
        )
    if not isinstance(dim, int) or isinstance(dim, bool):
        return TILES[arch][0][1]  # no row is for it; NormSpec refuses the dim by name
    return next(tile for top, tile in TILES[arch] if top is None or dim <= top)


def spec_for(arch, kind, rows, dim, dtype, eps, **options):
    """The NormSpec of a problem on `arch` with the table's tile for it; `options` are NormSpec's
    optional fields (affine, residual, residual_out)."""
    return NormSpec(kind, rows, dim, dtype, eps, **tile_for(arch, dim), **options)
