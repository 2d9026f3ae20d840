"""The platform's proof kernel: a tiled matrix-core GEMM built only from
platform/tile. fp16 or bf16 in, fp32 accumulate, output in the input type.

    kernel, grid = gemm_kernel("gfx942", "f16", m, n, k)
    kernel(args: a[m,k], b[k,n], c[m,n], m, n, k)
"""

from arch import arch as archs
from ir import types as T
from ir.builder import KernelBuilder
from tile.gemm import GemmConfig, Operands, epilogue, mainloop

ELEMS = {"f16": T.F16, "bf16": T.BF16}

# Matrix op and tile per arch, else per arch family (block sizes are multiples of the op shape).
CONFIGS = {
    "gfx950": lambda d: GemmConfig(f"mma_32x32x16_{d}_f32", 64, 64, 16, 2, 2),
    "gfx9": lambda d: GemmConfig(f"mma_16x16x16_{d}_f32", 32, 32, 16, 2, 2),
    "gfx11": lambda d: GemmConfig(f"mma_16x16x16_{d}_f32", 32, 32, 16, 2, 2),
    "gfx12": lambda d: GemmConfig(f"mma_16x16x16_{d}_f32", 32, 32, 16, 2, 2),
    "gfx1250": lambda d: GemmConfig(f"mma_16x16x32_{d}_f32", 32, 32, 32, 2, 2),
}


def gemm_kernel(arch, dtype, cfg=None):
    """(kernel, grid function (m, n) -> grid)."""
    if dtype not in ELEMS:
        raise ValueError(f"gemm_kernel: expected dtype in {sorted(ELEMS)}, got {dtype!r}")
    elem = ELEMS[dtype]
    info = archs.get(arch)
    cfg = cfg or CONFIGS.get(arch, CONFIGS[info.family])(dtype)
    b = KernelBuilder(f"gemm_{dtype}_{arch}", arch=arch, workgroup_size=(cfg.threads(info.wave_sizes[0]), 1, 1))
    a, bm, c = b.arg("a", T.GLOBAL), b.arg("b", T.GLOBAL), b.arg("c", T.GLOBAL)
    m, n, k = b.arg("m", T.I32), b.arg("n", T.I32), b.arg("k", T.I32)
    row0, col0 = b.mul(b.block_id(1), cfg.block_m), b.mul(b.block_id(0), cfg.block_n)
    acc = mainloop(b, cfg, Operands(a, bm, m, n, k, lda=k, ldb=n), elem, row0, col0)
    epilogue(b, acc.runs(b), c, n, m, n, row0, col0, elem, inside=acc.inside)
    return b.finish(), lambda mm, nn: (-(-nn // cfg.block_n), -(-mm // cfg.block_m), 1)
