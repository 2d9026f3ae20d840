"""Which family and config build a problem for an arch, and why.

One table per op: CHOOSERS maps the op to a function (problem, arch) ->
Choice, or EntryError when no family can build it. The conv_fwd table lists
the families in order of preference with the condition each needs (conv_dgrad
has CONV_DGRAD likewise); the first
that accepts the problem wins, and every family passed over says why in the
Choice's reasons (what `rocke build --explain` prints).

A problem may need more than one kernel: a split-K conv_igemm_fwd (or a
two-stage conv_igemm_wgrad) leaves f32 partial sums that
conv_fwd_split_k_reduce turns into the output (or dw). The
Choice then lists those kernels in `then` (each a Choice with its `stage`),
built and indexed after it (jobs.Job.kernels).
"""

import dataclasses
import math

from arch import arch as archs
from attention import tiles as attention_tiles
from attention.family_names import NAMES as ATTENTION_NAMES
from attention.spec import SpecError as AttentionSpecError
from conv import gather_address, igemm_tiles, row_runs, wgrad_spec
from conv.family_names import NAMES as CONV_NAMES
from conv.reduce_spec import ReduceSpec, vector_width
from conv.spec import SpecError as ConvSpecError
from conv.split_k import select_split_k, select_split_k_fwd, select_split_k_wgrad
from gemm.family_names import NAMES as GEMM_NAMES
from gemm.spec import SpecError as GemmSpecError
from gemm.tiles import TILES, TileError, spec_for
from norm import tiles as norm_tiles
from norm.family_names import NAMES as NORM_NAMES
from norm.spec import SpecError as NormSpecError
from planner.problems import EntryError, spec_error
from pool import spec as pool_spec
from pool.family_names import NAMES as POOL_NAMES
from softmax import plan as softmax_plan
from softmax.family_names import NAMES as SOFTMAX_NAMES
from softmax.spec import ELEM as SOFTMAX_ELEM
from softmax.spec import SoftmaxSpec
from softmax.spec import SpecError as SoftmaxSpecError


@dataclasses.dataclass(frozen=True)
class Choice:
    family: str  # the Family's name
    module: str  # its module in the registry, which builds the kernel
    spec: object  # the family's spec for this problem and arch
    config: str  # the family's config in a few words
    reasons: tuple  # why: one line per family considered or parameter picked
    then: tuple = ()  # the kernels run after this one for the same problem (Choices), e.g. a split's reduce
    stage: str = ""  # a follow-up kernel's stage name ("reduce"): its code object is NAME.STAGE.hsaco


@dataclasses.dataclass(frozen=True)
class _Family:
    """A family as the planner names it: its module in the registry and its
    name. Both come from the generated family_names, so that choosing
    imports no family's builder (jobs.lower builds with the caller's registry)."""

    module: str
    NAME: str


def _family(module):
    names = {**ATTENTION_NAMES, **CONV_NAMES, **GEMM_NAMES, **NORM_NAMES, **POOL_NAMES, **SOFTMAX_NAMES}
    return _Family(module, names[module])


direct_fwd = _family("conv.direct_fwd")
igemm_dgrad = _family("conv.igemm_dgrad")
igemm_fwd = _family("conv.igemm_fwd")
igemm_wgrad = _family("conv.igemm_wgrad")
img2col = _family("conv.img2col")
split_k_reduce = _family("conv.split_k_reduce")
gemm = _family("gemm.gemm")
attention = _family("attention.attention")
pool = _family("pool.pool")
softmax = _family("softmax.softmax")
norm = _family("norm.norm")


def _choice(family, spec, config, reasons, then=(), stage=""):
    """The Choice of `family` (a _Family: its NAME and its module)."""
    return Choice(family.NAME, family.module, spec, config, reasons, then, stage)


# Workgroup size of the one-output-per-lane conv families (conv/common.py).
_LANES_CONFIG = "1 output per lane, 256 lanes"


# conv_igemm_fwd's columns are a group's filters: fewer than one matrix op's
# N (16 on every arch's tile) leaves most of each op idle (depthwise: 1 of 16).
_IGEMM_MIN_FILTERS = 16


def _igemm(spec, arch):
    """conv_igemm_fwd: matrix cores, where the arch has its tile, the type is
    f16 or bf16 and each group has filters enough to fill the tile's columns."""
    if spec.k_per_group < _IGEMM_MIN_FILTERS:
        return (
            None,
            f"k / groups = {spec.k_per_group}: a group's filters would fill {spec.k_per_group} of a matrix op's {_IGEMM_MIN_FILTERS} columns",
        )
    try:
        igemm = igemm_tiles.spec_for(arch, spec)
    except igemm_tiles.IgemmSpecError as e:
        return None, str(e)
    tile = igemm.tile.describe()
    if _row_runs(spec, igemm.tile.block_k):
        igemm = dataclasses.replace(igemm, row_runs=True)
        m, n, k = igemm.gemm
        why = (
            f"matrix cores: a {m}x{n}x{k} implicit GEMM per group; its tile for {arch} (library/conv/igemm_tiles.json); "
            f"row runs: C = {spec.c} is no whole 16-byte unit, so each filter row's {row_runs.piece(spec)} elements "
            f"load as one run, padded to the k step of {igemm.tile.block_k} (conv.row_runs); never split"
        )
        return (igemm, f"{tile}, row runs"), why
    m, n, k = igemm.gemm
    split = select_split_k_fwd(igemm, arch)
    why = f"matrix cores: a {m}x{n}x{k} implicit GEMM per group; its tile for {arch} (library/conv/igemm_tiles.json); split-K: the planner (select_split_k_fwd) picks {split}"
    if split == 1:
        return (igemm, tile), why
    # A split launch holds fewer workgroups than the CUs (a few hundred blocks
    # of 128 x 64 outputs): its workspace, 16 slices at most, is far under
    # the 2 GiB IgemmSpec allows.
    igemm = dataclasses.replace(igemm, split_k=split)
    why += (
        f": the kernel reduces 1/{split} of the k steps per workgroup into an f32 workspace of {split} slices, "
        f"then conv_fwd_split_k_reduce (stage reduce, its own code object NAME.reduce.hsaco and index row) adds them"
        + (f", {_epilogue_words(spec)}" if spec.epilogue_field() else "")
        + f" into the {spec.dtype} output"
    )
    return (igemm, f"{tile}, split-K {split}"), why


def _row_runs(spec, block_k):
    """Whether conv_igemm_fwd gathers `spec` by row runs: its channels are no
    whole 16-byte unit (the plain gather would go element by element) and
    its filter rows are runs (row_runs.refusal)."""
    return not gather_address.whole_units(spec.c_per_group, spec.dtype) and row_runs.refusal(spec, block_k) is None


def _epilogue_words(conv):
    """A conv spec's epilogue in words, as --explain says what the reduce adds: "bias and relu"."""
    parts = ["bias"] * conv.bias + [conv.activation] * (conv.activation != "none")
    if conv.residual != "none":
        parts.append(f"the residual {conv.residual.replace('_', ' ')}")
    if conv.scale != "1":
        parts.append(f"scale {conv.scale}")
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def _fwd_reduce(igemm, arch):
    """The reduce kernel a split conv_igemm_fwd needs (none unsplit)."""
    if igemm.split_k == 1:
        return ()
    reduce = ReduceSpec(igemm.conv, igemm.split_k)
    config = f"{reduce.split_k} f32 slices, {vector_width(reduce.elements)} elements per lane"
    why = f"{split_k_reduce.NAME}: the sum of {igemm_fwd.NAME}'s {reduce.split_k} partial sums, converted to {reduce.conv.dtype}"
    return (_choice(split_k_reduce, reduce, config, (why,), stage="reduce"),)


def _no_follow_up(spec, arch):
    return ()


def _img2col(spec, arch):
    if spec.groups != 1:
        return None, f"groups = {spec.groups}: the im2col GEMM needs groups == 1"
    return (spec, _LANES_CONFIG), "groups == 1: the problem is one GEMM over the im2col matrix"


def _direct(spec, arch):
    return (spec, _LANES_CONFIG), f"groups = {spec.groups}: direct convolution computes any groups, depthwise included"


# The kernels a family's chosen spec needs after its own (Choice.then): family -> (spec, arch) -> Choices.
FOLLOW_UPS = {
    igemm_fwd.NAME: _fwd_reduce,
}

# conv_fwd: (family, accept (conv spec, arch) -> ((family spec, config) or None, why)), best first.
CONV_FWD = (
    (igemm_fwd, _igemm),
    (img2col, _img2col),
    (direct_fwd, _direct),
)


def _first_accepting(op, table, problem, arch):
    """The Choice of the first family of `table` that accepts the problem; every one tried says why."""
    reasons = []
    for family, accept in table:
        accepted, why = accept(problem.spec, arch)
        reasons.append(f"{family.NAME}: {'chosen' if accepted else 'passed over'}, {why}")
        if accepted:
            spec, config = accepted
            return _choice(family, spec, config, tuple(reasons), FOLLOW_UPS.get(family.NAME, _no_follow_up)(spec, arch))
    raise EntryError(problem.index, None, f"no {op} family accepts it: " + "; ".join(reasons), arch)


def _conv_fwd(problem, arch):
    return _first_accepting("conv_fwd", CONV_FWD, problem, arch)


def _idle_columns(columns, block_n):
    """What --explain says of a GEMM whose `columns` do not fill its blocks
    of `block_n`: the matrix ops multiply zeros in the rest (nothing when
    they fill them)."""
    computed = -(-columns // block_n) * block_n
    if columns == computed:
        return ""
    channels = f"{columns} channel{'s fill' if columns != 1 else ' fills'}"
    return (
        f"; the matrix ops are partly idle: a group's {channels} {columns} of the {computed} columns its blocks "
        f"multiply ({columns / computed:.1%} of the matrix work)"
    )


def _igemm_dgrad(spec, arch):
    """conv_igemm_dgrad: matrix cores, where the arch has its tile and the
    type is f16 or bf16, for a gradient (no bias). Any C/groups: its GEMM's
    columns are C/groups, so few channels per group (depthwise, ResNeXt, the
    C = 3 stem) leave most of each block's matrix work on zeros, but the
    numbers are right, and no other family computes a data gradient."""
    found = spec.epilogue_field()
    if found is not None:
        field, value, _ = found
        return (
            None,
            f"{field} = {value!r}: a data gradient has no bias, activation, residual or scale; drop {field} from the entry",
        )
    try:
        igemm = igemm_tiles.spec_for(arch, spec)
    except igemm_tiles.IgemmSpecError as e:
        return None, str(e)
    tile = igemm.tile.describe()
    m, n, k = igemm.dgrad_gemm
    work = math.prod(spec.stride)
    strides = "x".join(map(str, spec.stride))
    if work == 1:
        stride = ""
    elif igemm.dgrad_one_phase:
        stride = f"; stride {strides} of a 1x1 filter: the one stride phase it reaches, the other input pixels zeros"
    else:
        stride = f"; stride {strides} is masked in dy's gather: {work} x the matrix work of the non-zero terms"
    pixels = "output" if igemm.dgrad_one_phase else "input"
    why = (
        f"matrix cores: a {m}x{n}x{k} implicit GEMM per group ({pixels} pixels x C/groups x K/groups taps); "
        f"its tile for {arch} (library/conv/igemm_tiles.json){stride}{_idle_columns(n, igemm.tile.block_n)}"
    )
    return (igemm, tile), why


# conv_dgrad: the families that compute a data gradient, best first (as CONV_FWD).
CONV_DGRAD = ((igemm_dgrad, _igemm_dgrad),)


def _conv_dgrad(problem, arch):
    return _first_accepting("conv_dgrad", CONV_DGRAD, problem, arch)


_WGRAD_SPLIT_WHY = {
    "none": "the launch fills the CUs unsplit (or the reduction is too short to split): dw in the input type",
    "two_stage": "the f32 workspace of the splits fits the planner's budget (conv.split_k.WORKSPACE_BYTES), so each split writes its own slice and conv_fwd_split_k_reduce (stage reduce, its own code object NAME.reduce.hsaco and index row) adds them in a fixed order into the {dtype} dw",
    "atomic": "the f32 workspace of the splits would pass the planner's budget (conv.split_k.WORKSPACE_BYTES), so the splits add atomically into an f32 dw the caller zeroes first",
}


def _wgrad_reduce(spec):
    """The reduce kernel a two-stage conv_igemm_wgrad needs (none otherwise)."""
    if spec.mode != "two_stage":
        return ()
    reduce = ReduceSpec(spec.conv, spec.split, "dw")
    config = f"{reduce.split_k} f32 slices, {vector_width(reduce.elements)} elements per lane"
    why = f"{split_k_reduce.NAME}: the sum of {igemm_wgrad.NAME}'s {reduce.split_k} partial sums of dw, converted to {reduce.conv.dtype}"
    return (_choice(split_k_reduce, reduce, config, (why,), stage="reduce"),)


def _conv_wgrad(problem, arch):
    """conv_igemm_wgrad, the one wgrad family, split as select_split_k_wgrad
    says; a two-stage split then runs its reduce."""
    try:
        unsplit = wgrad_spec.spec_for(arch, problem.spec)
    except ConvSpecError as e:
        raise spec_error(problem.index, e, arch) from None
    policy = select_split_k_wgrad(unsplit, arch)
    spec = policy.apply(unsplit)
    m, n, k = spec.gemm
    blocks = spec.grid()[0] * spec.grid()[1] * spec.conv.groups
    split = "" if policy.split == 1 else f", split {policy.split} {policy.mode}"
    config = spec.igemm.tile.describe() + split
    reasons = (
        f"{igemm_wgrad.NAME}: the one wgrad family; matrix cores: a {m}x{n}x{k} implicit GEMM per group; its tile for {arch} (conv.wgrad_spec.TILES): {config}",
        f"workgroups: {blocks} block{'s' if blocks != 1 else ''} of dw on {archs.get(arch).cus} CUs",
        f"split-K: the planner (select_split_k_wgrad) picks {policy.split}, {policy.mode}: "
        + _WGRAD_SPLIT_WHY[policy.mode].format(dtype=spec.conv.dtype),
    )
    return _choice(igemm_wgrad, spec, config, reasons, _wgrad_reduce(spec))


def _gemm(problem, arch):
    fields = dict(problem.spec)
    if not isinstance(fields["dtype"], str) or (arch, fields["dtype"]) not in TILES:
        offered = sorted({d for a, d in TILES if a == arch})
        raise EntryError(
            problem.index,
            "dtype",
            f"expected an input type the gemm family has a tile for on {arch} ({', '.join(offered) or 'none'}), "
            f"got {fields['dtype']!r}",
            arch,
            offered,
        )
    m, n, k, dtype, out = (fields.pop(f) for f in ("m", "n", "k", "dtype", "out"))
    try:
        spec = spec_for(arch, m, n, k, dtype, out, **fields)
    except (GemmSpecError, TileError) as e:
        raise spec_error(problem.index, e, arch) from None
    split = select_split_k(spec.m, spec.n, spec.k, arch, spec.tile.block_m, spec.tile.block_n, spec.tile.block_k)
    groups = spec.grid()[0] * spec.grid()[1]
    config = spec.tile.describe()
    reasons = (
        f"{gemm.NAME}: the one GEMM family; its tile for {arch} {dtype} (library/gemm/tiles.json): {config}",
        f"workgroups: {groups} block{'s' if groups != 1 else ''} of C on {archs.get(arch).cus} CUs",
        f"split-K: the planner (select_split_k) picks {split}"
        + ("" if split == 1 else "; the gemm family has no split-K yet, so the kernel runs unsplit"),
    )
    return _choice(gemm, spec, config, reasons)


def _attention(problem, arch):
    fields = dict(problem.spec)
    head_dim = fields.pop("head_dim")
    dims = sorted(d for a, d in attention_tiles.TILES if a == arch)
    if dims and head_dim not in dims:
        raise EntryError(
            problem.index,
            "head_dim",
            f"expected a head dim the attention family has a tile for on {arch} ({', '.join(map(str, dims))}), "
            f"got {head_dim!r}",
            arch,
            dims,
        )
    try:
        tile = attention_tiles.tile_for(arch, head_dim)
    except attention_tiles.TileError as e:
        raise spec_error(problem.index, e, arch) from None
    sizes = [fields.pop(f) for f in ("batch", "heads", "kv_heads", "seq_q", "seq_k")]
    try:
        spec = attention_tiles.spec_for(arch, *sizes, head_dim, fields.pop("dtype"), **fields)
    except AttentionSpecError as e:
        raise spec_error(problem.index, e, arch) from None
    config = f"mma {tile['mma']}, block {tile['block_m']}x{tile['block_n']}, waves {tile['waves']}"
    blocks, heads, batch = spec.grid()
    reasons = (
        f"{attention.NAME}: the one attention family; its tile for {arch} d{head_dim} "
        f"(library/attention/tiles.json): {config}",
        f"workgroups: {blocks * heads * batch} ({blocks} query block{'s' if blocks != 1 else ''} of {spec.block_m} "
        f"x {heads} heads x {batch} batch) on {archs.get(arch).cus} CUs",
        "keys: "
        + (
            "the blocks left of the causal diagonal unmasked, then the diagonal band and any partial block masked"
            if spec.causal
            else "every whole block unmasked, then a partial last block masked"
        ),
    )
    return _choice(attention, spec, config, reasons)


def _pool(problem, arch):
    """pool, the one pooling family: no choice to make, so --explain says how the spec splits the work."""
    spec = problem.spec
    if spec.channels_last:
        tail = spec.c % spec.vec
        config = f"{spec.vec} channels per lane ({pool_spec.VECTOR_BYTES}-byte loads)" + (
            f", a tail lane of {tail}" if tail else ""
        )
        lanes = f"{spec.groups} lane{'s' if spec.groups != 1 else ''} per output position"
    else:
        config = "1 output element per lane (scalar loads: nchw's channels are not contiguous)"
        lanes = "a lane per output element"
    config += f", {pool_spec.THREADS} lanes"
    blocks = spec.grid()[0]
    reasons = (
        f"{pool.NAME}: the one pooling family (max and avg, 2-D and 3-D, nhwc and nchw): {config}",
        f"workgroups: {blocks} of {pool_spec.THREADS} lanes, {lanes}, on {archs.get(arch).cus} CUs",
        "window: loops clipped to the input, so padding is never read"
        + ("; the sum is divided by the whole window (count_pad)" if spec.count_pad else "")
        + ("" if spec.kind == "max" or spec.count_pad else "; the sum is divided by the input elements it covers"),
    )
    return _choice(pool, spec, config, reasons)


def _softmax(problem, arch):
    try:
        spec = SoftmaxSpec(**problem.spec)
    except SoftmaxSpecError as e:
        raise spec_error(problem.index, e, arch) from None
    p = softmax_plan.plan(spec, arch)
    config = softmax_plan.describe(p)
    elements = p.per_lane * p.vector
    blocks = p.grid(spec.rows)[0]
    reasons = (
        f"{softmax.NAME}: the one softmax family: {config}",
        f"row: {spec.dim} {spec.dtype} elements in {p.vectors} vectors of {p.vector * SOFTMAX_ELEM[spec.dtype].nbytes} "
        f"bytes over {p.group} lane{'s' * (p.group > 1)}, {elements} elements a lane: "
        + (
            f"read once (a lane holds at most lane_elements = {spec.lane_elements})"
            if p.one_pass
            else f"more than lane_elements = {spec.lane_elements}, so an online pass keeps the max and sum and a "
            "second pass reads the row again to write it"
        ),
        f"workgroups: {blocks} of {p.rows_per_block} row{'s' * (p.rows_per_block > 1)} ({spec.waves} waves) "
        f"on {archs.get(arch).cus} CUs",
    )
    return _choice(softmax, spec, config, reasons)


def _norm(problem, arch):
    """layernorm and rmsnorm: the norm family, the op its kind, with its arch's tile for the dim."""
    fields = dict(problem.spec)
    sizes = [fields.pop(f) for f in ("rows", "dim", "dtype", "eps")]
    try:
        spec = norm_tiles.spec_for(arch, problem.op, *sizes, **fields)
    except (NormSpecError, norm_tiles.TileError) as e:
        raise spec_error(problem.index, e, arch) from None
    config = f"{spec.threads} lanes a row, {spec.per_lane} elements a lane"
    chunks = spec.chunks
    reasons = (
        f"{norm.NAME}: the one norm family ({problem.op}); its tile for {arch} dim {spec.dim} "
        f"(library/norm/tiles.json): {config}",
        f"workgroups: {spec.rows} (one a row) on {archs.get(arch).cus} CUs",
        f"row: {spec.vec}-element vectors; "
        + (
            "held in registers, read once"
            if chunks == 1
            else f"{chunks} chunks of {spec.chunk} elements, read twice (statistics, then the output)"
        ),
    )
    return _choice(norm, spec, config, reasons)


CHOOSERS = {
    "conv_fwd": _conv_fwd,
    "conv_dgrad": _conv_dgrad,
    "conv_wgrad": _conv_wgrad,
    "gemm": _gemm,
    "attention": _attention,
    "pool": _pool,
    "softmax": _softmax,
    "layernorm": _norm,
    "rmsnorm": _norm,
}


def choose(problem, arch):
    """The Choice for `problem` on `arch`; EntryError (with .arch) when none."""
    return CHOOSERS[problem.op](problem, arch)
