"""Matrix ops (MFMA on gfx9, WMMA on gfx12): D = A B + C, through the lane
layouts platform/interp/layouts.py holds for each op (checked there against
AMD's Matrix Instruction Calculator where AMD has published one).

A mnemonic names an op id of platform/arch/mma_forms.json; its form on the
arch's generation gives the layout, the fragment sizes and the wave. The
products are summed in float64 and rounded once to float32. fp8 is OCP e4m3
("fn"), the format gfx950's MFMA reads; gfx942's fp8 MFMA reads the FNUZ
format, which is not emulated (a named error).

The ops run in every lane: a matrix op under a partial EXEC mask, or with
the cbsz/abid/blgp broadcast controls, or neg modifiers, is a named error.
"""

import functools

import numpy as np

from arch.mma_forms import FORMS
from emu import operands as O
from emu.errors import ExecutionError
from emu.table import register
from emu.valu import BindError
from interp.layouts import BY_ID
from interp.numerics import FP8_VALUES

MNEMONICS = {
    "v_mfma_f32_16x16x16_f16": "mma_16x16x16_f16_f32",
    "v_mfma_f32_16x16x16f16": "mma_16x16x16_f16_f32",
    "v_mfma_f32_16x16x16_bf16": "mma_16x16x16_bf16_f32",
    "v_mfma_f32_16x16x16bf16_1k": "mma_16x16x16_bf16_f32",
    "v_mfma_f32_32x32x8_f16": "mma_32x32x8_f16_f32",
    "v_mfma_f32_32x32x8f16": "mma_32x32x8_f16_f32",
    "v_mfma_f32_32x32x8_bf16": "mma_32x32x8_bf16_f32",
    "v_mfma_f32_32x32x8bf16_1k": "mma_32x32x8_bf16_f32",
    "v_mfma_f32_16x16x32_f16": "mma_16x16x32_f16_f32",
    "v_mfma_f32_16x16x32_bf16": "mma_16x16x32_bf16_f32",
    "v_mfma_f32_32x32x16_f16": "mma_32x32x16_f16_f32",
    "v_mfma_f32_32x32x16_bf16": "mma_32x32x16_bf16_f32",
    "v_mfma_f32_16x16x32_fp8_fp8": "mma_16x16x32_fp8_f32",
    "v_wmma_f32_16x16x16_f16": "mma_16x16x16_f16_f32",
    "v_wmma_f32_16x16x16_bf16": "mma_16x16x16_bf16_f32",
}
# Archs whose fp8 matrix ops read OCP e4m3.
_OCP_FP8 = frozenset({"gfx950", "gfx1201"})


@functools.lru_cache(maxsize=None)
def _positions(layout_id, part, lanes, n, columns):
    """Flat indices into a row-major matrix of `columns` columns of element v of lane l's fragment."""
    where = getattr(BY_ID[layout_id], part)
    rc = np.array([[where(lane, v) for v in range(n)] for lane in range(lanes)], np.int64)
    return (rc[..., 0] * columns + rc[..., 1]).ravel()


@functools.lru_cache(maxsize=None)
def _gather(layout_id, part, lanes, n, rows, columns):
    """(fragment element indices, in matrix order) when each matrix element is in
    exactly one lane's fragment; None where a layout repeats elements (gfx11)."""
    flat = _positions(layout_id, part, lanes, n, columns)
    if flat.size != rows * columns or np.unique(flat).size != flat.size:
        return None
    return np.argsort(flat)


def _matrix(values, order, flat, size):
    """A fragment's values (lanes * n, flat) as the matrix, row-major and flat."""
    if order is not None:
        return values[order]
    out = np.zeros(size)
    out[flat] = values
    return out


def _decode(words, elem, arch):
    """(lanes, elements) float64 of a fragment's registers (lanes, regs) uint32."""
    words = np.ascontiguousarray(words)
    if elem == "f16":
        return words.view(np.float16).astype(np.float64)
    if elem == "bf16":
        return (words.view(np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if arch not in _OCP_FP8:
        raise ExecutionError(f"fp8 matrix op on {arch}: its FNUZ fp8 format is not emulated")
    return FP8_VALUES["f8e4m3"][words.view(np.uint8)].astype(np.float64)


def _source(op, regs, lanes):
    if op.kind == "const":
        bits = O.constant_bits(op, "f32")
        value = np.uint32(bits).view(np.float32)
        return lambda w: np.full((lanes, regs), value, np.float32).view(np.uint32)
    file, first = ("v" if op.kind == "v" else "a"), op.index
    return lambda w: getattr(w, file)[:, first : first + regs]


def bind_mma(op_id):
    def binder(inst, ctx):
        form = FORMS.get((op_id, ctx.generation))
        if form is None:
            raise BindError(f"{op_id} has no form on {ctx.generation}")
        for name in ("cbsz", "abid", "blgp", "neg_lo", "neg_hi"):
            value = inst.modifier(name)
            if value not in (None, "0", "[0,0,0]"):
                raise BindError(f"modifier {name}:{value}")
        ops = [O.parse(t) for t in inst.operands]
        if len(ops) != 4:
            raise BindError(f"expected D, A, B, C; got {len(ops)} operands")
        d, a, b, c = ops
        m, n, k, elem = _shape(op_id)
        lanes, layout = form.wave, form.layout
        if lanes != ctx.lanes:
            raise BindError(f"{op_id} runs in wave{lanes}, the kernel in wave{ctx.lanes}")
        ebytes = 1 if elem == "fp8" else 2
        fa, fb, fc = form.fragment
        ra, rb = _source(a, fa * ebytes // 4, lanes), _source(b, fb * ebytes // 4, lanes)
        rc = _source(c, fc, lanes)
        pa, pb, pc = (
            _positions(layout, "a", lanes, fa, k),
            _positions(layout, "b", lanes, fb, n),
            _positions(layout, "c", lanes, fc, n),
        )
        ga, gb = _gather(layout, "a", lanes, fa, m, k), _gather(layout, "b", lanes, fb, k, n)
        dfile, dfirst = ("v" if d.kind == "v" else "a"), d.index
        arch, what = ctx.arch, f"{inst.mnemonic} at 0x{inst.address:x} in {ctx.kernel}"

        def step(w):
            if not w.full:
                raise ExecutionError(f"{what}: a matrix op under a partial EXEC mask (0x{w.exec_bits:x})")
            A = _matrix(_decode(ra(w), elem, arch).ravel(), ga, pa, m * k).reshape(m, k)
            B = _matrix(_decode(rb(w), elem, arch).ravel(), gb, pb, k * n).reshape(k, n)
            C = np.ascontiguousarray(rc(w)).view(np.float32).ravel()  # in D's lane layout already
            D = (A @ B).ravel()[pc] + C
            getattr(w, dfile)[:, dfirst : dfirst + fc] = D.astype(np.float32).view(np.uint32).reshape(lanes, fc)

        return step

    return binder


def _shape(op_id):
    _, mnk, elem, _ = op_id.split("_")
    m, n, k = (int(x) for x in mnk.split("x"))
    return m, n, k, elem


register({name: bind_mma(op_id) for name, op_id in MNEMONICS.items()})
