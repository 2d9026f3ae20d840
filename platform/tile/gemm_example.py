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
from ir import types as T
from ir.builder import KernelBuilder
from tile.gemm import GemmConfig, Operands, epilogue, mainloop

ELEMS = {"f16": T.F16, "bf16": T.BF16}

# The tiles are data, gemm_example.json beside this file, which the C++ mirror
# (platform/tile/cpp/gemm_example.cc) reads too.
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemm_example.json")
with open(PATH, encoding="utf-8") as _f:
    _DATA = json.load(_f)


def _config(row, dtype):
    """The row's GemmConfig for input type `dtype` (f32 accumulate)."""
    sizes = (row[k] for k in ("block_m", "block_n", "block_k", "waves_m", "waves_n"))
    return GemmConfig(f"mma_{row['mma']}_{dtype}_f32", *sizes)


def _table(rows, key):
    """key value -> (dtype -> GemmConfig), in the file's order."""
    return {row[key]: functools.partial(_config, row) for row in rows}


# Matrix op and tile per generation, overridden per arch (block sizes are
# multiples of the op shape); gfx1250 is both an arch and a generation.
CONFIGS = {**_table(_DATA["by_generation"], "generation"), **_table(_DATA["by_arch"], "arch")}

# The 128x128x32 tile with f32 accumulate that issue 9 compares with Triton
# (tools/bench/tile_bench.py): 4 waves on gfx9, 8 on the wave32 archs.
TILES_128 = _table(_DATA["tiles_128"], "arch")


def gemm_kernel(arch, dtype, cfg=None, a_layout="row", b_layout="row"):
    """(kernel, grid function (m, n) -> grid)."""
    if dtype not in ELEMS:
        raise ValueError(f"gemm_kernel: expected dtype in {sorted(ELEMS)}, got {dtype!r}")
    elem = ELEMS[dtype]
    info = archs.get(arch)
    cfg = cfg or CONFIGS.get(arch, CONFIGS[info.generation])(dtype)
    b = KernelBuilder(f"gemm_{dtype}_{arch}", arch=arch, workgroup_size=(cfg.threads(info.wave_sizes[0]), 1, 1))
    a, bm, c = b.arg("a", T.GLOBAL), b.arg("b", T.GLOBAL), b.arg("c", T.GLOBAL)
    m, n, k = b.arg("m", T.I32), b.arg("n", T.I32), b.arg("k", T.I32)
    row0, col0 = b.mul(b.block_id(1), cfg.block_m), b.mul(b.block_id(0), cfg.block_n)
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
    epilogue(b, acc.runs(b), c, n, m, n, row0, col0, elem, inside=acc.inside, rows=cfg.block_m)
    return b.finish(), lambda mm, nn: (-(-nn // cfg.block_n), -(-mm // cfg.block_m), 1)
