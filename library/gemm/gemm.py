"""gemm: C = A @ B on matrix cores, built from platform/tile.

One workgroup per block of C (the spec's tile): tile.gemm.mainloop copies
A and B (row- or column-major, fp8 as its bytes) into LDS a k step at a time
and issues the matrix ops, accumulating in f32; tile.gemm.epilogue applies
the spec's epilogue (bias, residual, activation, scale: GemmSpec) and stores
the block in the output type (a block wholly inside C with vector stores, an
edge block element by element). The kernel takes m, n and k at run time:

    gemm_<case id>(a, b, c, [bias,] [residual,] m: i32, n: i32, k: i32)

so one kernel serves every problem with its types, layouts and tile; the
spec's m, n and k are the problem the numeric gate runs (and its grid,
GemmSpec.grid()), and pick how edge tiles are copied (edge_units): a
problem narrower than a block, every block an edge one, copies them by
16-byte units where k allows (checked at run time, so the kernel still
serves every k), any other element by element.
"""

import math

import numpy as np

from arch import arch as archs
from arch.mma_forms import FORMS
from family import bound
from family.family import Family, NumericCheck
from gemm.cases import cases
from gemm.family_names import NAMES
from gemm.spec import ELEM, SpecError
from interp.numerics import fp8_decode, fp8_encode, round_bf16
from ir import types as T
from ir.builder import KernelBuilder
from tile import tile as tiles
from tile.gemm import GemmConfig, Operands, epilogue, mainloop, scale_value, spec_epilogue

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]


def _form(spec, arch):
    """The matrix op's form on `arch`; SpecError if the arch lacks it."""
    have = tiles.shapes(spec.dtype, arch)
    if spec.tile.mma not in have:
        raise SpecError(
            f"GemmSpec.tile.mma: expected a matrix-core shape {arch} has for {spec.dtype} inputs "
            f"({', '.join(have) or 'none'}), got {spec.tile.mma!r}; take {arch}'s tile from library/gemm/tiles.json",
            "GemmSpec.tile.mma",
            spec.tile.mma,
            have,
        )
    return FORMS[(spec.op, archs.get(arch).generation)]


def edge_units(spec):
    """Whether the guarded loop reads 16-byte units (tile.gemm.GemmConfig.edge_units): where
    the spec's problem is narrower than one block in m or n, so that every block is an edge
    one (a classifier at batch 1: m = 1). Elsewhere edge blocks are few and keep the element
    loop, smaller code (the C++ mirror: library/gemm/cpp/gemm.cc)."""
    return spec.m < spec.tile.block_m or spec.n < spec.tile.block_n


def build(case):
    spec = case.spec
    form = _form(spec, case.arch)
    t = spec.tile
    cfg = GemmConfig(spec.op, t, edge_units=edge_units(spec))
    b = KernelBuilder(
        NAME + "_" + case.id, arch=case.arch, workgroup_size=(cfg.threads(form.wave), 1, 1), wave_size=form.wave
    )
    a, bm, c = b.arg("a", T.GLOBAL), b.arg("b", T.GLOBAL), b.arg("c", T.GLOBAL)
    bias = b.arg("bias", T.GLOBAL) if spec.bias else None
    residual = b.arg("residual", T.GLOBAL) if spec.residual != "none" else None
    m, n, k = b.arg("m", T.I32), b.arg("n", T.I32), b.arg("k", T.I32)
    lda = {"row": k, "col": m}[spec.layout_a]
    ldb = {"row": n, "col": k}[spec.layout_b]
    ops = Operands(a, bm, m, n, k, lda, ldb, a_layout=spec.layout_a, b_layout=spec.layout_b)
    row0, col0 = b.mul(b.block_id(1), t.block_m), b.mul(b.block_id(0), t.block_n)
    acc = mainloop(b, cfg, ops, ELEM[spec.dtype], row0, col0)
    epilogue(
        b,
        acc.runs(b),
        c,
        n,
        m,
        n,
        row0,
        col0,
        ELEM[spec.out],
        bias=bias,
        residual=residual,
        inside=acc.inside,
        rows=t.block_m,
        **spec_epilogue(spec),
    )
    return b.finish()


# -- numbers --------------------------------------------------------------------------

# A NaN of each output type: every element the kernel fails to write fails the check.
POISON = {"f32": (np.float32, np.nan), "f16": (np.float16, np.nan), "bf16": (np.uint16, 0x7FC0)}


def encode(x, dtype):
    """float data -> what the kernel reads (f16, bf16 bits, f8e4m3 codes, f32), and its exact values."""
    if dtype == "f32":
        f = x.astype(np.float32)
        return f, f.astype(np.float64)
    if dtype == "f16":
        h = x.astype(np.float16)
        return h, h.astype(np.float64)
    if dtype == "bf16":
        r = round_bf16(x.astype(np.float32))
        return (r.view(np.uint32) >> 16).astype(np.uint16), r.astype(np.float64)
    codes = fp8_encode(x, "f8e4m3")
    return codes, fp8_decode(codes, "f8e4m3").astype(np.float64)


def decode(y, out):
    if out == "bf16":
        return (y.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return y.astype(np.float64)


def reference(a, b, bias, residual=None):
    """A @ B in float64, plus the bias and a residual where given: the epilogue's linear part."""
    c = a @ b
    c = c if bias is None else c + bias
    return c if residual is None else c + residual


def numeric_check(case, rng):
    spec = case.spec
    a, a64 = encode(rng.standard_normal((spec.m, spec.k)), spec.dtype)
    b, b64 = encode(rng.standard_normal((spec.k, spec.n)) / math.sqrt(spec.k), spec.dtype)
    store_type, poison = POISON[spec.out]
    c = np.full((spec.m, spec.n), poison, store_type)
    args = [
        a if spec.layout_a == "row" else np.ascontiguousarray(a.T),
        b if spec.layout_b == "row" else np.ascontiguousarray(b.T),
        c,
    ]
    bias, residual64 = None, None
    if spec.bias:
        bias = rng.standard_normal(spec.n).astype(np.float32)
        args.append(bias)
    if spec.residual != "none":
        residual, residual64 = encode(rng.standard_normal((spec.m, spec.n)), spec.out)
        args.append(residual)
    before = residual64 if spec.residual == "before_activation" else None
    after = residual64 if spec.residual == "after_activation" else None
    length = spec.k + (bias is not None) + (before is not None)
    pre = bound.expected(reference, (a64, b64, bias, before), length, spec.out)
    want = bound.finished(pre, spec.activation, after, scale_value(spec.scale))
    return NumericCheck(args + [spec.m, spec.n, spec.k], spec.grid(), {2: want}, lambda v: decode(v, spec.out))


FAMILY = Family(NAME, cases(), build, numeric_check)
