"""attention_fwd: O = softmax(scale * Q Kᵀ + mask) V on matrix cores (flash attention's forward).

One workgroup per block of block_m query rows of one (batch, head); grid
(query blocks, heads, batch). Each wave holds its block_m / waves query rows
of Q in registers, as the B fragments of Sᵀ = K Qᵀ, and loops over the keys
block_n at a time with an online softmax (f32 statistics, f32 accumulators):

  - K (keys x head_dim) and V, transposed by the copy (head_dim x keys), go
    to LDS through tile.copy.TileCopy in tile.lds.KMajor layouts (V's copy
    in the shape that gives every lane one move, V_RUNS): the next
    block's loads fly while this one is multiplied (the gemm tile's two
    stages). The scores are computed transposed, so a lane holds one query's
    scores for consecutive keys, and its converted probabilities are the B
    fragment of Oᵀ = Vᵀ Pᵀ as they are (tile.softmax.chain): no lane exchange.
  - A query's running max takes two ds_bpermute exchanges a block on a
    64-lane wave, one on 32 (tile.softmax.across), its maxima flagged nnan
    (the scores are finite or -inf), so LLVM quiets no operand first; its
    running sum stays two per-lane partials (packed adds and one packed fma
    on CDNA), rescaled with the accumulators, and is summed across lanes
    once, at the end.
  - Keys in two loops. The blocks every query of the workgroup sees whole
    (all of them but the last partial one; with causal, those left of the
    diagonal band) run unguarded with no mask work: the scale folds into the
    exponent's fma (tile.softmax.scaled_exp). The rest (the band along the
    causal diagonal and a last block past seq_k) copy with guards and set the
    masked scores to -inf; a row with no key yet keeps its max at -inf and
    the exponent is taken against 0, so no NaN is made.
  - Without a mask, and with one query tile a wave, the unguarded loop
    keeps a row's max in score units (raw_max in build): the old max is
    one more operand of the lane's v_max3_f32 tree, and scale log2(e)
    applies in the exponents' fma; the band loop gets it in log2 units.
    The other loops take the old max into the first lane exchange's
    v_max3_f32 (_across_with); the unguarded one's lane max is a v_max3_f32
    tree too.
  - The additive padding mask (f32 per key) is added in both loops.
  - The end divides by the row sum (0 for a row that sees no key), converts
    to the input type and stores a lane's consecutive head-dim elements as
    one vector; with lse it also writes max + log(sum) per query row.

The kernel takes seq_q and seq_k at run time:

    attention_fwd_<case id>(q, k, v, o, [mask,] [lse,] seq_q: i32, seq_k: i32)
"""

import dataclasses

import numpy as np

from arch import arch as archs
from arch.mma_forms import FORMS
from attention.cases import cases
from attention.family_names import NAMES
from attention.spec import ELEM, SpecError
from family import bound
from family.family import Family, NumericCheck
from interp.numerics import round_bf16
from ir import types as T
from ir.builder import KernelBuilder
from tile import softmax
from tile.copy import RUNS, TileCopy
from tile.lds import KMajor

# The family's name, from its rocke_family target (BUILD.bazel).
NAME = NAMES[__name__]
NEG_INF = float("-inf")
# V's elements per lane -> the (k_run, run) of its transposing copy (tile.copy.RUNS) that gives each lane
# one move, k_run keys of `run` head-dim rows, where the default's 16 elements (2 keys of 8 rows) would
# leave half the lanes idle (8) or take two moves (32); 4 keys of 4 rows for 16 was measured worse on gfx1201.
V_RUNS = {8: (2, 4), 32: (4, 0)}


def _form(spec, arch):
    """The matrix op's form on `arch`; SpecError if the arch lacks it."""
    generation = archs.get(arch).generation
    if (spec.op, generation) not in FORMS:
        have = sorted(op for op, gen in FORMS if gen == generation and op.endswith(f"_{spec.dtype}_f32"))
        raise SpecError(
            f"AttentionSpec.mma: expected a matrix op {arch} has for {spec.dtype} inputs ({', '.join(have) or 'none'}), "
            f"got {spec.mma!r}; take {arch}'s tile from library/attention/tiles.json",
            "AttentionSpec.mma",
            spec.mma,
            have,
        )
    return FORMS[(spec.op, generation)]


class _Kernel:
    """The builder state of one attention kernel: its values and the two products' helpers."""

    def __init__(self, case):
        spec = self.spec = case.spec
        form = _form(spec, case.arch)
        self.frag = softmax.chain(spec.op, archs.get(case.arch).generation)
        self.elem, self.c = ELEM[spec.dtype], form.fragment[2]
        wave, self.threads = form.wave, spec.waves * form.wave
        b = self.b = KernelBuilder(
            NAME + "_" + case.id, arch=case.arch, workgroup_size=(self.threads, 1, 1), wave_size=wave
        )
        q, k, v, o = (b.arg(name, T.GLOBAL) for name in ("q", "k", "v", "o"))
        self.mask = b.arg("mask", T.GLOBAL) if spec.mask == "padding" else None
        self.lse = b.arg("lse", T.GLOBAL) if spec.lse else None
        self.seq_q, self.seq_k = b.arg("seq_q", T.I32), b.arg("seq_k", T.I32)
        self.tiles_q, self.tiles_d, self.tiles_k = (
            spec.block_m // spec.waves // 16,
            spec.head_dim // 16,
            spec.block_n // 16,
        )
        self.eb = self.elem.nbytes
        qb, self.head, self.z = b.block_id(0), b.block_id(1), b.block_id(2)
        kv_head = b.udiv(self.head, spec.heads // spec.kv_heads)
        rows_apart = spec.head_dim if spec.layout == "bhsd" else None  # elements from one row to the next
        self.ld_q = rows_apart or spec.heads * spec.head_dim
        self.ld_k = rows_apart or spec.kv_heads * spec.head_dim
        q_base = self._base(self.seq_q, spec.heads, self.head)
        self.q, self.o = b.offset(q, b.mul(q_base, self.eb)), b.offset(o, b.mul(q_base, self.eb))
        k_base = self._base(self.seq_k, spec.kv_heads, kv_head)
        self.k, self.v = b.offset(k, b.mul(k_base, self.eb)), b.offset(v, b.mul(k_base, self.eb))
        self.row0 = b.mul(qb, spec.block_m)
        self.tid, lane = b.thread_id(0), b.lane_id()
        wave_row = b.mul(b.udiv(self.tid, wave), spec.block_m // spec.waves)
        self.lane_row, self.lane_k = self.frag.origin(b, lane)
        self.first_group = b.cmp("lt", lane, self.frag.rows)
        # The query row of each of this lane's tiles: its C column.
        self.rows = [b.add(b.add(self.row0, wave_row), b.add(self.lane_row, 16 * t)) for t in range(self.tiles_q)]

    def _base(self, seq, heads, head):
        """The element offset of head `head` of this workgroup's batch in a tensor of `seq` rows of `heads` heads."""
        b, d = self.b, self.spec.head_dim
        batch = b.mul(self.z, b.mul(seq, heads * d))
        head_stride = d if self.spec.layout == "bshd" else b.mul(seq, d)
        return b.add(batch, b.mul(head, head_stride))

    def q_fragments(self):
        """[tile][d step] B fragments of this wave's Q rows, read once from global memory (zero past seq_q)."""
        b, per = self.b, self.frag.per_lane
        vec = T.vector(self.elem, per)
        out = []
        for row in self.rows:
            br = b.if_(b.cmp("lt", row, self.seq_q), [vec] * self.tiles_d)
            with br.then_():
                at = b.add(b.mul(row, self.ld_q), self.lane_k)
                b.yield_(
                    *(b.load(b.offset(self.q, b.mul(b.add(at, 16 * kd), self.eb)), vec) for kd in range(self.tiles_d))
                )
            with br.else_():
                zero = b.build([b.const(0.0, self.elem)] * per)
                b.yield_(*([zero] * self.tiles_d))
            out.append(list(br.results))
        return out


def build(case):
    kern = _Kernel(case)
    spec, b = kern.spec, kern.b
    d, bn = spec.head_dim, spec.block_n
    banks = archs.lds_banks(case.arch)
    line = banks.count * banks.bytes
    lay_k = KMajor(bn, d, kern.eb, line)  # a key per row, head_dim contiguous
    lay_v = KMajor(d, bn, kern.eb, line)  # V transposed: a head-dim element per row, keys contiguous
    copy_k = TileCopy(kern.k, kern.ld_k, "k", lay_k, kern.elem, kern.threads)
    k_run, run = V_RUNS.get(d * bn // kern.threads, RUNS[0])
    copy_v = TileCopy(kern.v, kern.ld_k, "rows", lay_v, kern.elem, kern.threads, k_run=k_run, run=run)
    lds_k, lds_v = b.lds_alloc(lay_k.nbytes), b.lds_alloc(lay_v.nbytes)
    qf = kern.q_fragments()
    scale = spec.scale_value
    scale2 = scale * softmax.LOG2E  # the scores in log2 units, as the statistics (tile.softmax.scaled_exp)
    off_k = [
        lay_k.offsets(b, kern.lane_row, b.add(kern.lane_k, 16 * kd), range(0, bn, 16)) for kd in range(kern.tiles_d)
    ]
    off_v = [
        lay_v.offsets(b, kern.lane_row, b.add(kern.lane_k, 16 * kt), range(0, d, 16)) for kt in range(kern.tiles_k)
    ]
    frag_vec = T.vector(kern.elem, kern.frag.per_lane)
    tq, td, tk, c = kern.tiles_q, kern.tiles_d, kern.tiles_k, kern.c
    mask_row = None
    if kern.mask is not None:
        mask_row = b.offset(kern.mask, b.mul(b.mul(kern.z, kern.seq_k), 4))
    # Without a mask, and with one query tile a wave, the unguarded loop keeps each row's max in score
    # units, not log2 units: the old max is then one more operand of the lane's tree of v_max3_f32, with
    # no plain max, and the exponents' fma scales it. With two query tiles a wave (d128 on CDNA) LLVM 23
    # interleaves the two trees into plain maxima, measured worse, so those keep log2 units
    # (docs/figures/attention-isa.md).
    raw_max = mask_row is None and kern.tiles_q == 1

    def mask_values(kb, kt, guarded):
        """This lane's additive mask for key tile kt of the block at kb: c f32 values (0 past seq_k when guarded)."""
        key = b.add(b.add(kb, 16 * kt), kern.lane_k)
        if not guarded:
            vec = b.load_wide(b.offset(mask_row, b.mul(key, 4)), T.vector(T.F32, c))
            return [b.extract(vec, v) for v in range(c)]
        rsrc = b.buffer_rsrc(mask_row, b.mul(kern.seq_k, 4))
        return [b.buffer_load(rsrc, b.mul(b.add(key, v), 4), T.F32) for v in range(c)]

    def step(kb, state, guarded):
        """One block of keys at kb, out of LDS: the scores, the online softmax, the second product."""
        acc, m, l = state
        # Each fragment is read from LDS next to its matrix ops: read all at once, they would all be
        # live together (llvm20 spills VGPRs at d128 on gfx1201).
        zero = b.build([b.const(0.0, T.F32)] * c)
        s = [[zero] * tk for _ in range(tq)]
        for kt in range(tk):
            for kd in range(td):
                kf = b.load(b.offset(lds_k, off_k[kd][kt]), frag_vec)
                for t in range(tq):
                    s[t][kt] = b.mma(spec.op, kf, qf[t][kd], s[t][kt])
        adds = [mask_values(kb, kt, guarded) for kt in range(tk)] if mask_row is not None else None
        acc, m, l = [list(a) for a in acc], list(m), list(l)
        pk, splat = [None] * tq, [None] * tq  # per query tile: P as the next product's B fragments, alpha splat
        for t in range(tq):
            x = [[b.extract(s[t][kt], v) for v in range(c)] for kt in range(tk)]
            if guarded or adds is not None:
                x = [[b.mul(e, scale2) for e in row] for row in x]
                if adds is not None:
                    log2e = b.const(softmax.LOG2E, T.F32)
                    x = [[b.fma(a, log2e, e) for e, a in zip(row, add)] for row, add in zip(x, adds)]
                if guarded:
                    x = [
                        [b.select(seen(kern, kb, kt, v, t), e, NEG_INF) for v, e in enumerate(row)]
                        for kt, row in enumerate(x)
                    ]
                m_new = _across_with(b, kern.frag, _reduce(b, x, b.max_nnan), m[t])
                m_use = b.select(b.cmp("eq", m_new, NEG_INF), 0.0, m_new)
                p = [[b.exp2(b.sub(e, m_use)) for e in row] for row in x]
                alpha = b.exp2(b.sub(m[t], m_use))
            elif raw_max:
                # The old max joins the lane's tree as one more max3 operand (m and m_new in score units).
                m_new = softmax.across(b, kern.frag, _max3(b, x + [[m[t]]]), b.max_nnan)
                m_use = b.mul(m_new, scale2)
                p = [[softmax.scaled_exp(b, e, scale, m_use) for e in row] for row in x]
                alpha = softmax.scaled_exp(b, m[t], scale, m_use)
            else:
                m_new = _across_with(b, kern.frag, b.mul(_max3(b, x), scale2), m[t])
                m_use = m_new
                p = [[softmax.scaled_exp(b, e, scale, m_use) for e in row] for row in x]
                alpha = b.exp2(b.sub(m[t], m_use))
            # The row sum stays two partial sums (packed adds on CDNA), summed at the end (_store).
            pairs = [b.build(row[v : v + 2]) for row in p for v in range(0, c, 2)]
            l[t] = b.fma(l[t], b.build([alpha] * 2), _reduce(b, [pairs], b.add))
            m[t] = m_new
            pk[t] = [softmax.repack(b, row, kern.elem) for row in p]
            splat[t] = b.build([alpha] * c)
        # Each V fragment is read once for all the wave's query tiles.
        for dt in range(td):
            a = [b.mul(acc[t][dt], splat[t]) for t in range(tq)]
            for kt in range(tk):
                vf = b.load(b.offset(lds_v, off_v[kt][dt]), frag_vec)
                a = [b.mma(spec.op, vf, pk[t][kt], a[t]) for t in range(tq)]
            for t in range(tq):
                acc[t][dt] = a[t]
        return acc, m, l

    def flat(state):
        acc, m, l = state
        return [a for row in acc for a in row] + list(m) + list(l)

    def unflat(values):
        values = list(values)
        acc = [values[t * td : (t + 1) * td] for t in range(tq)]
        return acc, values[tq * td : tq * td + tq], values[tq * td + tq :]

    zero = b.build([b.const(0.0, T.F32)] * c)
    init = flat(
        ([[zero] * td for _ in range(tq)], [b.const(NEG_INF, T.F32)] * tq, [b.build([b.const(0.0, T.F32)] * 2)] * tq)
    )
    whole_end, kv_end = _bounds(kern)
    with b.if_(b.cmp("gt", whole_end, 0)):
        copy_k.store(b, lds_k, copy_k.load(b, 0, 0, kern.tid), kern.tid)
        copy_v.store(b, lds_v, copy_v.load(b, 0, 0, kern.tid), kern.tid)
    b.lds_barrier()  # K and V reach LDS through registers: the barriers need order LDS alone
    with b.for_range(0, whole_end, bn, init) as fast:
        nxt = b.min(b.add(fast.iv, bn), b.sub(whole_end, bn))  # the last block reloads itself: no branch
        # The block's origin is added to the pointers, so each lane's offset from it is the same every
        # iteration: one 64-bit add a load, where a whole index to the tensors' start costs four or five.
        origin = b.mul(b.mul(nxt, kern.ld_k), kern.eb)
        block_k = dataclasses.replace(copy_k, src=b.offset(kern.k, origin))
        block_v = dataclasses.replace(copy_v, src=b.offset(kern.v, origin))
        regs_k, regs_v = block_k.load(b, 0, 0, kern.tid), block_v.load(b, 0, 0, kern.tid)
        state = step(fast.iv, unflat(fast.iters), guarded=False)
        b.lds_barrier()  # every wave is done reading this block
        copy_k.store(b, lds_k, regs_k, kern.tid)
        copy_v.store(b, lds_v, regs_v, kern.tid)
        b.lds_barrier()
        b.yield_(*flat(state))
    acc, m, l = unflat(fast.results)
    if raw_max:
        m = [b.mul(x, scale2) for x in m]  # the band's statistics are in log2 units
    with b.for_range(whole_end, kv_end, bn, flat((acc, m, l))) as band:
        b.lds_barrier()
        copy_k.guarded(b, lds_k, band.iv, 0, kern.seq_k, d, kern.tid)
        copy_v.guarded(b, lds_v, 0, band.iv, d, kern.seq_k, kern.tid)
        b.lds_barrier()
        b.yield_(*flat(step(band.iv, unflat(band.iters), guarded=True)))
    _store(kern, unflat(band.results))
    return b.finish()


def _across_with(b, frag, x, old):
    """softmax.across of b.max_nnan over `x`, with `old` (the same on every such lane) joining the
    first exchange: max(max(x, the other lane's x), old) is one v_max3_f32 where a plain max after
    the exchange would be one more instruction."""
    n = frag.placement.n
    other = b.bpermute(b.mul(b.xor(b.lane_id(), n), softmax.LANE_BYTES), x)
    return softmax.butterfly(b, b.max_nnan(b.max_nnan(x, other), old), b.max_nnan, 2 * n, b.wave_size)


def _max3(b, rows):
    """The max (nnan: no value is NaN) of every value of a list of lists, as a tree of max(max(a, b), c):
    one v_max3_f32 each (LLVM forms them from that shape, where other shapes leave some plain v_max_f32)."""
    values = [e for row in rows for e in row]
    while len(values) > 1:
        tail = len(values) // 3 * 3
        values = [b.max_nnan(b.max_nnan(x, y), z) for x, y, z in zip(*[iter(values[:tail])] * 3)] + values[tail:]
        if len(values) == 2:
            values = [b.max_nnan(*values)]
    return values[0]


def _reduce(b, rows, combine):
    """`combine` over every value of a list of lists, as a balanced tree."""
    values = [e for row in rows for e in row]
    while len(values) > 1:
        values = [combine(x, y) for x, y in zip(values[::2], values[1::2])] + values[len(values) // 2 * 2 :]
    return values[0]


def seen(kern, kb, kt, v, t):
    """i1: query tile t of this lane sees key element v of key tile kt in the block at kb."""
    b = kern.b
    key = b.add(b.add(kb, 16 * kt), b.add(kern.lane_k, v))
    if not kern.spec.causal:
        return b.cmp("lt", key, kern.seq_k)
    # One compare against the row's last key: each is a lane mask held in scalar registers.
    diagonal = b.add(kern.rows[t], b.sub(kern.seq_k, kern.seq_q))
    return b.cmp("le", key, b.min(diagonal, b.sub(kern.seq_k, 1)))


def _bounds(kern):
    """(whole_end, kv_end): the keys before whole_end run unguarded and unmasked, those up to kv_end
    guarded. Non-causal: every whole block, then the partial one. Causal: the blocks whose last key
    the workgroup's first query sees, then the band up to its last query's diagonal."""
    b, bn = kern.b, kern.spec.block_n
    whole = b.mul(b.udiv(kern.seq_k, bn), bn)
    if not kern.spec.causal:
        return whole, kern.seq_k
    shift = b.sub(kern.seq_k, kern.seq_q)
    first = b.max(b.add(b.add(kern.row0, shift), 1), 0)  # keys the block's first query sees
    last = b.max(b.add(b.add(kern.row0, kern.spec.block_m), shift), 0)
    return b.min(b.mul(b.udiv(first, bn), bn), whole), b.min(last, kern.seq_k)


def _store(kern, state):
    """O (and the lse) of this lane's query rows: divided by the row sums, in the input type."""
    b, spec = kern.b, kern.spec
    acc, m, l = state
    for t, row in enumerate(kern.rows):
        total = softmax.across(b, kern.frag, b.add(b.extract(l[t], 0), b.extract(l[t], 1)), b.add)
        inv = softmax.reciprocal(b, total)
        splat = b.build([inv] * kern.c)
        inside = b.cmp("lt", row, kern.seq_q)
        with b.if_(inside):
            at = b.add(b.mul(row, kern.ld_q), kern.lane_k)
            for dt in range(kern.tiles_d):
                out = b.convert(b.mul(acc[t][dt], splat), T.vector(kern.elem, kern.c))
                b.store_wide(b.offset(kern.o, b.mul(b.add(at, 16 * dt), kern.eb)), out)
        if kern.lse is not None:
            with b.if_(b.and_(inside, kern.first_group)):
                lse_at = b.add(b.mul(b.add(b.mul(kern.z, spec.heads), kern.head), kern.seq_q), row)
                at_lse = b.offset(kern.lse, b.mul(lse_at, 4))
                log = b.log(total)
                # the max is in log2 units (tile.softmax.scaled_exp)
                b.store(at_lse, b.fma(m[t], b.const(softmax.LN2, T.F32), log))


# -- numbers --------------------------------------------------------------------------


def encode(x, dtype):
    """float data -> what the kernel reads (f16, bf16 bits), and its exact values."""
    if dtype == "f16":
        h = x.astype(np.float16)
        return h, h.astype(np.float64)
    r = round_bf16(x.astype(np.float32))
    return (r.view(np.uint32) >> 16).astype(np.uint16), r.astype(np.float64)


POISON = {"f16": (np.float16, np.nan), "bf16": (np.uint16, 0x7FC0)}
# Relative error of one f32 operation, and of f32's log (LLVM's expansion is within 2 ulps) and exp2
# (v_exp_f32, through math.exp2: 1 ulp in AMD's ISA manuals; the interpreter and the emulator compute the
# correctly rounded 2^x, so only a GPU would show it).
_U32 = 2.0**-24
# Relative error of 1 / sum as rsqrt(sum)^2: v_rsq_f32 within 1 ulp, squared, and the multiply.
_RECIPROCAL = 4 * _U32
# The input type's unit roundoff: the probabilities are rounded to it for the second product.
_UNIT = {"f16": 2.0**-11, "bf16": 2.0**-8}


def _heads(x, spec, heads):
    """[batch, heads, seq, d] of a stored tensor."""
    return x if spec.layout == "bhsd" else x.transpose(0, 2, 1, 3)


def reference(spec, q, k, v, mask):
    """(O, lse, the probabilities, the scores' error bound): float64 attention of the encoded inputs,
    [batch, heads, seq_q, d], [batch, heads, seq_q]."""
    group = spec.heads // spec.kv_heads
    qh = _heads(q, spec, spec.heads)
    kh = np.repeat(_heads(k, spec, spec.kv_heads), group, axis=1)
    vh = np.repeat(_heads(v, spec, spec.kv_heads), group, axis=1)
    scale = spec.scale_value
    s = scale * np.einsum("bhqd,bhkd->bhqk", qh, kh)
    err = scale * bound.gamma(spec.head_dim) * np.einsum("bhqd,bhkd->bhqk", np.abs(qh), np.abs(kh))
    if mask is not None:
        s = s + mask[:, None, None, :]
        err = err + _U32 * np.abs(mask[:, None, None, :])  # the mask times log2(e)'s f32 rounding
    if spec.causal:
        i = np.arange(spec.seq_q)[:, None]
        j = np.arange(spec.seq_k)[None, :]
        s = np.where(j <= i + spec.seq_k - spec.seq_q, s, -np.inf)
    top = s.max(axis=-1, keepdims=True)
    e = np.exp(s - top)
    total = e.sum(axis=-1, keepdims=True)
    p = e / total
    lse = (top + np.log(total))[..., 0]
    return p @ vh, lse, p, vh, np.where(np.isfinite(s), err + 4 * _U32 * np.abs(s), 0)


def expected(spec, q, k, v, mask):
    """bound.Expected of O (as stored) and of the lse: each element within its derived error.

    A probability reaches the second product with a relative error of at most eta: its score's
    f32 error (scale * gamma_d * sum |q k|, a few roundings of the score in log2 units, and the
    f32 rounding of log2(e) in scale * log2(e) and, with a mask, in mask * log2(e)), the exp2,
    and the rounding to the input type. O = sum p v / sum p takes it twice (numerator and sum),
    plus the f32 sum of seq_k products and the reciprocal of the sum:
    |dO| <= (2 eta + gamma_k + _RECIPROCAL) sum p |v|. The lse takes eta
    once without the rounding to the input type (the sum is of the f32 probabilities), plus its own
    roundings."""
    o, lse, p, vh, score_err = reference(spec, q, k, v, mask)
    eta = score_err.max(axis=-1) + 8 * _U32  # per query row, before the rounding to the input type
    weight = p @ np.abs(vh)
    o_err = (2 * (eta[..., None] + _UNIT[spec.dtype]) + bound.gamma(spec.seq_k) + _RECIPROCAL) * weight
    # The max comes back from log2 units times ln(2)'s f32 rounding: u |max| <= u (|lse| + log(seq_k)).
    lse_err = eta + 5 * _U32 * np.abs(lse) + _U32 * np.log(spec.seq_k)
    if spec.layout == "bshd":
        o, o_err = o.transpose(0, 2, 1, 3), o_err.transpose(0, 2, 1, 3)
    return bound.within(o, o_err, spec.dtype), bound.within(lse, lse_err, "f32")


def numeric_check(case, rng):
    spec = case.spec
    q, q64 = encode(rng.standard_normal(spec.shape(spec.seq_q, spec.heads)), spec.dtype)
    k, k64 = encode(rng.standard_normal(spec.shape(spec.seq_k, spec.kv_heads)), spec.dtype)
    v, v64 = encode(rng.standard_normal(spec.shape(spec.seq_k, spec.kv_heads)), spec.dtype)
    store_type, poison = POISON[spec.dtype]
    o = np.full(spec.shape(spec.seq_q, spec.heads), poison, store_type)
    args = [q, k, v, o]
    mask = None
    if spec.mask == "padding":  # each batch keeps a prefix of its keys, at least one
        keep = rng.integers(1, spec.seq_k + 1, spec.batch)
        mask = np.where(np.arange(spec.seq_k)[None, :] < keep[:, None], 0.0, -np.inf).astype(np.float32)
        args.append(mask)
    want_o, want_lse = expected(spec, q64, k64, v64, mask)
    outputs = {3: want_o}
    if spec.lse:
        outputs[len(args)] = want_lse
        args.append(np.full((spec.batch, spec.heads, spec.seq_q), np.nan, np.float32))
    return NumericCheck(args + [spec.seq_q, spec.seq_k], spec.grid(), outputs, bound.decode_stored)


FAMILY = Family(NAME, cases(), build, numeric_check)
