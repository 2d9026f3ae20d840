"""The platform's proof kernel: a tiled matrix-core GEMM built only from
platform/tile. fp16 or bf16 in, fp32 accumulate, output in the input type.

    kernel, grid = gemm_kernel("gfx942", "f16")
    kernel(args: a[m,k], b[k,n], c[m,n], m, n, k)

A and B are row-major unless a_layout / b_layout say "col" (then a is
stored as [k,m] and b as [n,k]); c is row-major.
"""

import functools
import json
import os

from arch import arch as archs
from errors.errors import FieldError
from ir import types as T
from ir.builder import KernelBuilder
from tile.gemm import GemmConfig, Operands, epilogue, mainloop
from tile.tile import Tile

ELEMS = {"f16": T.F16, "bf16": T.BF16}

# The tiles are data, gemm_example.json beside this file, which the C++ mirror
# (platform/tile/cpp/gemm_example.cc) reads too.
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemm_example.json")
with open(PATH, encoding="utf-8") as _f:
    _DATA = json.load(_f)


def _config(tile, dtype):
    """GemmConfig of `tile` for input type `dtype` (f32 accumulate): the matrix op of the tile's shape."""
    return GemmConfig(f"mma_{tile.mma}_{dtype}_f32", tile)


def _table(name, key):
    """key value -> (dtype -> GemmConfig) of gemm_example.json's table `name`,
    in the file's order: each row's tile (tile.FIELDS, spelled flat beside
    the key) built once, here, so a bad row is refused on import."""
    return {
        row[key]: functools.partial(_config, Tile.of(row, f"gemm_example.json: {name}[{i}]", FieldError))
        for i, row in enumerate(_DATA[name])
    }


# Matrix op and tile per generation, overridden per arch (block sizes are
# multiples of the op shape); gfx1250 is both an arch and a generation.
CONFIGS = {**_table("by_generation", "generation"), **_table("by_arch", "arch")}

# The 128x128x32 tile with f32 accumulate that issue 9 compares with Triton
# (tools/bench/tile_bench.py): 4 waves on gfx9, 8 on the wave32 archs.
TILES_128 = _table("tiles_128", "arch")


def config(arch, dtype):
    """CONFIGS' GemmConfig for `arch` (its own row, else its generation's)
    and input type `dtype`; FieldError naming the arch if neither has one."""
    generation = archs.get(arch).generation
    for key in (arch, generation):
        if key in CONFIGS:
            return CONFIGS[key](dtype)
    raise FieldError(
        f"arch: expected an arch or generation with a row in platform/tile/gemm_example.json "
        f"({', '.join(CONFIGS)}), got {arch!r} (generation {generation})",
        "arch",
        arch,
        list(CONFIGS),
    )


def gemm_kernel(arch, dtype, cfg=None, a_layout="row", b_layout="row"):
    """(kernel, grid function (m, n) -> grid)."""
    if dtype not in ELEMS:
        raise FieldError(
            f"gemm_kernel.dtype: expected one of {', '.join(ELEMS)}, got {dtype!r}",
            "gemm_kernel.dtype",
            dtype,
            list(ELEMS),
        )
    elem = ELEMS[dtype]
    cfg = cfg or config(arch, dtype)
    t = cfg.tile
    b = KernelBuilder(
        f"gemm_{dtype}_{arch}", arch=arch, workgroup_size=(cfg.threads(archs.get(arch).wave_sizes[0]), 1, 1)
    )
    a, bm, c = b.arg("a", T.GLOBAL), b.arg("b", T.GLOBAL), b.arg("c", T.GLOBAL)
    m, n, k = b.arg("m", T.I32), b.arg("n", T.I32), b.arg("k", T.I32)
    row0, col0 = b.mul(b.block_id(1), t.block_m), b.mul(b.block_id(0), t.block_n)
    ops = Operands(
        a,
        bm,
        m,
        n,
        k,
        lda=k if a_layout == "row" else m,
        ldb=n if b_layout == "row" else k,
        a_layout=a_layout,
        b_layout=b_layout,
    )
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    epilogue(b, acc.runs(b), c, n, m, n, row0, col0, elem, inside=acc.inside, rows=t.block_m)
    return b.finish(), lambda mm, nn: (-(-nn // t.block_n), -(-mm // t.block_m), 1)
