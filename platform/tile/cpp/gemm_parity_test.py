"""platform/tile/cpp against platform/tile: gemm_dump builds gemm_example.py's
kernels in C++ (every arch, f16 and bf16, the small and the 128x128x32
configs, row- and column-major operands), fp8_test.py's fp8 kernel on every
arch (an error where the arch lacks the op) and the epilogue's other paths
(bias and relu, atomic, per-element stores, the FMA main loop); their .rk
text and, for f16 and fp8 with row-major operands, their LLVM IR for every flavor that knows
the arch must equal Python's byte for byte, and the tile's errors carry
Python's facts (errors.check_parity): each engine words its own message. gather_test.py's gathered GEMMs (A, or B, through
tile.gather, both load paths) are compared too, lowered with each arch's
oldest flavor."""

import dataclasses
import json
import os
import subprocess

import pytest

from arch import arch
from errors.errors import FieldError, check_parity
from ir import types as T
from ir.builder import KernelBuilder
from ir.printer import print_kernel
from lower.llvm import lower
from tile.copy import DirectCopy, TileCopy
from tile.gather import Gather, GatherCopy
from tile.gemm import FmaConfig, GemmConfig, Operands, epilogue, fma_mainloop, mainloop
from tile.gemm_example import ELEMS, TILES_128, config, gemm_kernel
from tile.lds import KMajor, RowXor
from tile.tile import Tile

DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemm_dump")
MODES = ("bias_relu", "atomic", "elements", "fma", "residual_before", "residual_after")
# Probes that are good input (the rest must fail).
GOOD = {"check_good"}


def _variant(arch_name, dtype, mode):
    """gemm_example's kernel with another epilogue: bias and relu on the
    wide path, atomic f32 accumulation (a branch per edge element: `rows`
    is ignored), per-element buffer stores everywhere
    (_Accumulators.elements, no `inside`), the FMA main loop, bias, erf GELU,
    a residual before it and a scale on the wide path (residual_before), or
    tanh GELU and a residual after it, a branch per element (residual_after). _fp8's
    epilogue has no `rows`: a branch per edge element, stored."""
    elem, info = ELEMS[dtype], arch.get(arch_name)
    cfg = FmaConfig(8, 8) if mode == "fma" else config(arch_name, dtype)
    block = cfg if mode == "fma" else cfg.tile
    threads = cfg.threads() if mode == "fma" else cfg.threads(info.wave_sizes[0])
    b = KernelBuilder(f"gemm_{mode}_{dtype}_{arch_name}", arch=arch_name, workgroup_size=(threads, 1, 1))
    a, bm, c, bias = b.arg("a", T.GLOBAL), b.arg("b", T.GLOBAL), b.arg("c", T.GLOBAL), b.arg("bias", T.GLOBAL)
    residual = b.arg("residual", T.GLOBAL) if mode.startswith("residual_") else None
    m, n, k = b.arg("m", T.I32), b.arg("n", T.I32), b.arg("k", T.I32)
    row0, col0 = b.mul(b.block_id(1), block.block_m), b.mul(b.block_id(0), block.block_n)
    ops = Operands(a, bm, m, n, k, lda=k, ldb=n)
    if mode == "fma":
        epilogue(
            b,
            fma_mainloop(b, cfg, ops, elem, row0, col0),
            c,
            n,
            m,
            n,
            row0,
            col0,
            elem,
            bias=bias,
            activation="relu",
            rows=block.block_m,
        )
        return b.finish()
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    if mode == "bias_relu":
        epilogue(
            b,
            acc.runs(b),
            c,
            n,
            m,
            n,
            row0,
            col0,
            elem,
            bias=bias,
            activation="relu",
            inside=acc.inside,
            rows=block.block_m,
        )
    elif mode == "atomic":
        epilogue(
            b, acc.runs(b), c, n, m, n, row0, col0, T.F32, bias=bias, atomic=True, inside=acc.inside, rows=block.block_m
        )
    elif mode == "residual_before":
        epilogue(
            b,
            acc.runs(b),
            c,
            n,
            m,
            n,
            row0,
            col0,
            elem,
            bias=bias,
            activation="gelu_erf",
            residual=residual,
            scale=0.5,
            inside=acc.inside,
            rows=block.block_m,
        )
    elif mode == "residual_after":
        epilogue(
            b,
            acc.elements(b),
            c,
            n,
            m,
            n,
            row0,
            col0,
            elem,
            activation="gelu_tanh",
            residual=residual,
            residual_at="after_activation",
        )
    else:
        epilogue(b, acc.elements(b), c, n, m, n, row0, col0, elem, activation="relu", rows=block.block_m)
    return b.finish()


def _fp8(arch_name, a_layout, b_layout):
    """fp8_test.py's kernel (fp8 in, f32 out) on `arch_name`."""
    cfg = GemmConfig("mma_16x16x32_fp8_f32", Tile("16x16x32", 32, 32, 32, 2, 2))
    b = KernelBuilder("g", arch=arch_name, workgroup_size=(cfg.threads(64), 1, 1))
    a, bm, c = (b.arg(x, T.GLOBAL) for x in "abc")
    m, n, k = b.arg("m", T.I32), b.arg("n", T.I32), b.arg("k", T.I32)
    row0, col0 = b.mul(b.block_id(1), cfg.tile.block_m), b.mul(b.block_id(0), cfg.tile.block_n)
    lda, ldb = {"row": k, "col": m}[a_layout], {"row": n, "col": k}[b_layout]
    acc = mainloop(
        b, cfg, Operands(a, bm, m, n, k, lda, ldb, a_layout=a_layout, b_layout=b_layout), T.F8E4M3, row0, col0
    )
    epilogue(b, acc.runs(b), c, n, m, n, row0, col0, T.F32, inside=acc.inside)
    return b.finish()


# gather_test.py's arch and type pairs, and its shapes (m, n, k).
GATHERED = (("gfx942", "f16"), ("gfx950", "bf16"), ("gfx1201", "bf16"), ("gfx1250", "f16"))
GATHER_SHAPES = ((200, 130, 72), (37, 45, 29))
STRIDE = 7  # gather_test.STRIDE


def _gather(arch_name, dtype, m, n, k, runs):
    """gather_test.py's kernel: A gathered, every third row padding; rows
    permuted (runs) or A transposed with every fifth k masked."""
    cfg = TILES_128[arch_name](dtype)
    elem = ELEMS[dtype]
    b = KernelBuilder(
        f"gather_{arch_name}", arch=arch_name, workgroup_size=(cfg.threads(arch.get(arch_name).wave_sizes[0]), 1, 1)
    )
    a, bm, c = b.arg("a", T.GLOBAL), b.arg("b", T.GLOBAL), b.arg("c", T.GLOBAL)

    def address(b, row, kk):
        valid = b.cmp("ne", b.rem(row, 3), 0)
        if runs:
            return b.add(b.mul(b.rem(b.mul(row, STRIDE), m), k), kk), valid
        return b.add(b.mul(kk, m), row), b.and_(valid, b.cmp("ne", b.rem(kk, 5), 0))

    ops = Operands(a, bm, b.const(m, T.I32), b.const(n, T.I32), b.const(k, T.I32), 0, n, a_gather=Gather(address, runs))
    row0, col0 = b.mul(b.block_id(1), cfg.tile.block_m), b.mul(b.block_id(0), cfg.tile.block_n)
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    epilogue(b, acc.runs(b), c, n, ops.m, ops.n, row0, col0, elem, inside=acc.inside)
    return b.finish()


# gather_test.py's B-gathered kernels: arch and type pairs, shapes.
B_GATHERED = (("gfx942", "bf16"), ("gfx1201", "f16"))
B_GATHER_SHAPES = (
    (136, 144, 72),
)  # gather_test's first: fast loop, k tail and edge blocks (one keeps this test small)
B_GATHERS = (("k", False), ("rows", False), ("rows", True))  # gather_test.B_GATHERS


def _gather_b(arch_name, dtype, m, n, k, contiguous, runs):
    """gather_test.py's B-gathered kernel: A column-major, B's k rows
    permuted, every third column (or 8-column run) padding."""
    cfg = TILES_128[arch_name](dtype)
    elem = ELEMS[dtype]
    b = KernelBuilder(
        f"gather_b_{arch_name}", arch=arch_name, workgroup_size=(cfg.threads(arch.get(arch_name).wave_sizes[0]), 1, 1)
    )
    a, bm, c = b.arg("a", T.GLOBAL), b.arg("b", T.GLOBAL), b.arg("c", T.GLOBAL)

    def address(b, col, kk):
        return b.add(b.mul(b.rem(b.mul(kk, STRIDE), k), n), col), b.cmp(
            "ne", b.rem(b.div(col, 8) if runs else col, 3), 0
        )

    ops = Operands(
        a,
        bm,
        b.const(m, T.I32),
        b.const(n, T.I32),
        b.const(k, T.I32),
        m,
        0,
        a_layout="col",
        b_gather=Gather(address, runs, contiguous),
    )
    row0, col0 = b.mul(b.block_id(1), cfg.tile.block_m), b.mul(b.block_id(0), cfg.tile.block_n)
    acc = mainloop(b, cfg, ops, elem, row0, col0)
    epilogue(b, acc.runs(b), c, n, ops.m, ops.n, row0, col0, elem, inside=acc.inside)
    return b.finish()


def _kernels():
    """name -> (build, flavors to lower with), as gemm_dump names them."""
    out = {}
    for name, info in arch.ARCHS.items():
        for dtype in ("f16", "bf16"):
            flavors = info.flavors if dtype == "f16" else ()
            for la in ("row", "col"):
                for lb in ("row", "col"):
                    lowered = flavors if la == lb == "row" else ()
                    key = f"{name}/{dtype}/{la}_{lb}"
                    out[key + "/small"] = (
                        lambda n=name, d=dtype, x=la, y=lb: gemm_kernel(n, d, None, x, y)[0],
                        lowered,
                    )
                    if name in TILES_128:
                        out[key + "/128"] = (
                            lambda n=name, d=dtype, x=la, y=lb: gemm_kernel(n, d, TILES_128[n](d), x, y)[0],
                            lowered,
                        )

                        # The register path where the direct-to-LDS one is the default (gfx950).
                        def registers(n=name, d=dtype, x=la, y=lb):
                            return gemm_kernel(n, d, dataclasses.replace(TILES_128[n](d), direct_lds=False), x, y)[0]

                        out[key + "/128_registers"] = (registers, lowered)
            for mode in MODES:
                out[f"{name}/{dtype}/{mode}"] = (
                    lambda n=name, d=dtype, m=mode: _variant(n, d, m),
                    (info.min_llvm,) if dtype == "f16" else (),
                )
        for la in ("row", "col"):
            for lb in ("row", "col"):
                flavors = info.flavors if la == lb == "row" else ()
                out[f"{name}/fp8/{la}_{lb}"] = (lambda n=name, x=la, y=lb: _fp8(n, x, y), flavors)
    for name, dtype in GATHERED:
        for m, n, k in GATHER_SHAPES:
            for runs in (True, False):
                key = f"{name}/{dtype}/gather/{m}x{n}x{k}/{'runs' if runs else 'elements'}"
                out[key] = (
                    lambda a=name, d=dtype, s=(m, n, k), r=runs: _gather(a, d, *s, r),
                    (arch.get(name).min_llvm,),
                )
    for name, dtype in B_GATHERED:
        for m, n, k in B_GATHER_SHAPES:
            for contiguous, runs in B_GATHERS:
                key = f"{name}/{dtype}/gather_b/{m}x{n}x{k}/{contiguous}_{'runs' if runs else 'elements'}"
                out[key] = (
                    lambda a=name, d=dtype, s=(m, n, k), c=contiguous, r=runs: _gather_b(a, d, *s, c, r),
                    (arch.get(name).min_llvm,),
                )
    return out


KERNELS = _kernels()


def _error(probe):
    """The FieldError `probe` raises (a VerifyError is one), or None."""
    try:
        probe()
    except FieldError as e:
        return e
    return None


def _probes():
    b = KernelBuilder("probe", arch="gfx942", workgroup_size=(256, 1, 1))
    p, i = b.arg("p", T.GLOBAL), b.arg("i", T.I32)
    return {
        "check_fp8_generation": lambda: GemmConfig("mma_16x16x32_fp8_f32", Tile("16x16x32", 32, 32, 32, 2, 2)).check(
            "gfx12"
        ),
        "check_generation": lambda: GemmConfig("mma_16x16x32_f16_f32", Tile("16x16x32", 32, 32, 32, 2, 2)).check(
            "gfx11"
        ),
        "check_unknown_op": lambda: GemmConfig("mma_8x8x8_f16_f32", Tile("16x16x16", 32, 32, 32, 2, 2)).check("gfx9"),
        "check_mma": lambda: GemmConfig("mma_32x32x16_bf16_f32", Tile("16x16x16", 64, 64, 16, 2, 2)).check("gfx9"),
        "check_good": lambda: GemmConfig("mma_16x16x16_f16_f32", Tile("16x16x16", 32, 32, 16, 2, 2)).check("gfx12"),
        "tile_block_m": lambda: Tile("16x16x16", 48, 32, 16, 2, 2),
        "example_dtype": lambda: gemm_kernel("gfx942", "f32"),
        "operands_a": lambda: Operands(p, p, i, i, i, i, i, a_layout="diag"),
        "operands_b": lambda: Operands(p, p, i, i, i, i, i, b_layout="Row"),
        "epilogue_activation": lambda: epilogue(b, [], p, i, i, i, i, i, T.F16, activation="gelu"),
        "epilogue_residual_at": lambda: epilogue(b, [], p, i, i, i, i, i, T.F16, residual_at="middle"),
        "epilogue_atomic": lambda: epilogue(b, [], p, i, i, i, i, i, T.F16, atomic=True),
        "kmajor_row": lambda: KMajor(64, 3, 2, 128),
        "kmajor_line": lambda: KMajor(64, 32, 2, 96),
        "kmajor_unit": lambda: KMajor(64, 32, 2, 120),
        "copy_contiguous": lambda: TileCopy(p, i, "cols", KMajor(64, 32, 2, 128), T.F16, 256),
        "copy_rows": lambda: TileCopy(p, i, "rows", KMajor(12, 32, 2, 128), T.F16, 256),
        "copy_threads": lambda: TileCopy(p, i, "k", KMajor(16, 16, 2, 128), T.F16, 48),
        "copy_runs": lambda: TileCopy(p, i, "k", KMajor(64, 32, 2, 128), T.F16, 256, k_run=4),
        "gather_none": lambda: GatherCopy(p, 0, "k", KMajor(64, 32, 2, 128), T.F16, 256),
        "gather_rows": lambda: GatherCopy(
            p, 0, "rows", KMajor(64, 32, 2, 128), T.F16, 256, gather=Gather(lambda b, r, k: (r, None), True)
        ),
        "gather_k": lambda: GatherCopy(
            p, 0, "k", KMajor(64, 32, 2, 128), T.F16, 256, gather=Gather(lambda b, r, k: (r, None), True, "rows")
        ),
        "rowxor_row": lambda: RowXor(32, 96, 2, 256, 64),
        "rowxor_run": lambda: RowXor(32, 128, 2, 256, 24),
        "direct_rounds": lambda: DirectCopy(p, i, KMajor(16, 32, 2, 256), T.F16, 256),
        "gather_threads": lambda: GatherCopy(
            p, 0, "k", KMajor(16, 16, 2, 128), T.F16, 48, gather=Gather(lambda b, r, k: (r, None), True)
        ),
    }


@pytest.fixture(scope="module")
def cpp():
    return json.loads(subprocess.run([DUMP], capture_output=True, text=True, check=True).stdout)


def test_the_dump_has_every_kernel_and_probe(cpp):
    assert sorted(cpp["kernels"]) == sorted(KERNELS)
    # A kernel that fails to build is not lowered (test_same_kernel checks Python fails alike).
    built = [name for name in KERNELS if not cpp["kernels"][name].startswith("error: ")]
    assert sorted(cpp["llvm"]) == sorted(f"{name}@{flavor}" for name in built for flavor in KERNELS[name][1])
    assert sorted(cpp["errors"]) == sorted(_probes())


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_same_kernel(cpp, name):
    build, flavors = KERNELS[name]
    try:
        kernel = build()
    except FieldError as e:
        have = cpp["kernels"][name]
        assert have.startswith("error: "), f"Python refuses ({e}), C++ builds it"
        check_parity(e, json.loads(have.removeprefix("error: ")), name)
        return
    assert cpp["kernels"][name] == print_kernel(kernel)
    for flavor in flavors:
        assert cpp["llvm"][f"{name}@{flavor}"] == lower(kernel, flavor), flavor


@pytest.mark.parametrize("probe", sorted(_probes()))
def test_same_error(cpp, probe):
    error = _error(_probes()[probe])
    assert (error is None) == (probe in GOOD), error
    if error is None:
        assert cpp["errors"][probe] is None, f"C++ refuses what Python accepts: {cpp['errors'][probe]}"
    else:
        check_parity(error, cpp["errors"][probe], probe)
