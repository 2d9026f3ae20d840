"""Row statistics of matrix-core accumulators: what an online softmax needs.

Attention computes its scores transposed, Sᵀ = K Qᵀ (a key per row, a query
per column), so that a C fragment (fragments.Fragment.c) gives lane l one
query, column l % n, and `run` consecutive keys; the lanes l ^ n, l ^ 2n, ...
hold the other keys of the same query. Three helpers follow from that:

  - across: a query's row statistic (max or sum) over the lanes that share
    its column, by lane.bpermute (ds_bpermute_b32) exchanges, log2 of the
    lane groups of them: 2 on a 64-lane wave of 16x16 tiles, 1 on 32 lanes.
  - scaled_exp: exp(scale * s - m) as 2^(scale log2(e) s - m'), with
    scale log2(e) folded into one fma and the exponential one v_exp_f32
    (math.exp2): the statistics are kept in log2 units, m' = m log2(e), and
    the scores are never scaled on their own.
  - repack: a lane's f32 probabilities converted to the input type, one
    vector: by chain(), exactly the B fragment of P for the second product
    Oᵀ = Vᵀ Pᵀ, with no lane exchange.

Two more serve any row held across lanes (library/softmax holds a row in a
group of consecutive lanes): butterfly, the exchange `across` is made of, over
any power-of-two span of lane-id bits; and reciprocal, 1 / a row sum.
"""

from arch.mma_forms import FORMS
from errors.errors import FieldError
from ir import mma as M
from ir import types as T
from tile.fragments import FRAGMENTS

LANE_BYTES = 4  # lane.bpermute addresses lanes in bytes
LOG2E = 1.4426950408889634  # log2(e), the double nearest it (C++: std::numbers::log2e)
LN2 = 0.6931471805599453  # ln(2), the double nearest it (C++: std::numbers::ln2)


def chain(op, generation):
    """The Fragment of `op` on `generation` when its C fragment is its own B
    operand's layout: lane l's C elements v are keys origin_k(l) + v of
    column l % n, for every lane of the wave. FieldError otherwise (such an
    op needs a lane exchange between the two products, which this does not do)."""
    if (op, generation) not in FRAGMENTS:
        raise FieldError(
            f"softmax.chain: expected an op with a fragment layout on {generation}, got {op}",
            "softmax.chain",
            {"op": op, "generation": generation},
        )
    frag = FRAGMENTS[(op, generation)]
    s = M.shape(op)
    form = FORMS[(op, generation)]
    c = form.fragment[2]
    ok = s.m == s.n == s.k == frag.rows == frag.placement.n and c == frag.per_lane
    for lane in range(form.wave):
        origin = (lane // frag.rows) % frag.groups * frag.per_lane
        ok = ok and all(frag.placement.at(lane, v) == (origin + v, lane % s.n) for v in range(c))
    if not ok:
        raise FieldError(
            f"softmax.chain: expected an op whose accumulator is its own B operand's layout, got {op} on {generation}",
            "softmax.chain",
            {"op": op, "generation": generation},
        )
    return frag


def across(b, frag, x, combine):
    """`combine` (a builder method: b.max, b.add) of the f32 `x` over the lanes
    that hold the same C column as this one: every such lane gets the result."""
    return butterfly(b, x, combine, frag.placement.n, b.wave_size)


def butterfly(b, x, combine, first, end):
    """`combine` of the 32-bit `x` over the lanes whose ids differ from this one's only in the bits
    first, 2 first, ... below `end` (powers of two, end <= the wave): every such lane gets the result,
    by log2(end / first) ds_bpermute exchanges. first = 1: over each aligned group of `end` lanes."""
    lane = b.lane_id()
    step = first
    while step < end:
        x = combine(x, b.bpermute(b.mul(b.xor(lane, step), LANE_BYTES), x))
        step *= 2
    return x


def scaled_exp(b, s, scale, m):
    """2^(scale log2(e) s - m) for f32 values, `scale` a float and `m` in log2 units (the row's max
    of scale log2(e) s): exp(scale s) relative to the row, as one fma and one exp2."""
    return b.exp2(b.fma(s, b.const(scale * LOG2E, T.F32), b.neg(m)))


def reciprocal(b, total):
    """1 / total for an f32 row sum, 0 where total is 0 (a row with nothing seen): rsqrt(total)^2,
    v_rsq_f32 and a multiply where an IEEE division is a dozen instructions (within 4 ulps: total >= 1
    wherever anything is seen, its max term being exp(0))."""
    root = b.rsqrt(total)
    return b.select(b.cmp("gt", total, 0.0), b.mul(root, root), 0.0)


def repack(b, values, elem):
    """The f32 `values` as one vector of `elem` (the input type), rounded to nearest."""
    return b.convert(b.build(values), T.vector(elem, len(values)))
