"""Which family and config build a problem for an arch, and why.

One table per op: CHOOSERS maps the op to a function (problem, arch) ->
Choice, or EntryError when no family can build it. The conv_fwd table lists
the families in order of preference with the condition each needs; the first
that accepts the problem wins, and every family passed over says why in the
Choice's reasons (what `rocke build --explain` prints).
"""

import dataclasses

from gemm.spec import SpecError as GemmSpecError
from gemm.tiles import TILES, TileError, spec_for
from helpers.helpers import num_cus, select_split_k
from planner.problems import EntryError, spec_error


@dataclasses.dataclass(frozen=True)
class Choice:
    family: str  # the Family's name
    module: str  # its module in the registry, which builds the kernel
    spec: object  # the family's spec for this problem and arch
    config: str  # the family's config in a few words
    reasons: tuple  # why: one line per family considered or parameter picked


# Workgroup size of the one-output-per-lane conv families (conv/common.py).
_LANES_CONFIG = "1 output per lane, 256 lanes"


def _img2col(spec, arch):
    if spec.groups != 1:
        return None, f"groups = {spec.groups}: the im2col GEMM needs groups == 1"
    return (spec, _LANES_CONFIG), "groups == 1: the problem is one GEMM over the im2col matrix"


def _direct(spec, arch):
    return (spec, _LANES_CONFIG), f"groups = {spec.groups}: direct convolution computes any groups, depthwise included"


# conv_fwd: (family, module, accept (conv spec, arch) -> ((family spec, config) or None, why)), best first.
CONV_FWD = (
    ("conv_img2col", "conv.img2col", _img2col),
    ("conv_direct_fwd", "conv.direct_fwd", _direct),
)


def _conv_fwd(problem, arch):
    reasons = []
    for family, module, accept in CONV_FWD:
        accepted, why = accept(problem.spec, arch)
        reasons.append(f"{family}: {'chosen' if accepted else 'passed over'}, {why}")
        if accepted:
            spec, config = accepted
            return Choice(family, module, spec, config, tuple(reasons))
    raise EntryError(problem.index, None, "no conv_fwd family accepts it: " + "; ".join(reasons), arch)


def _no_family(problem, arch):
    raise EntryError(problem.index, "op", f"no family computes {problem.op} yet (issue 10); conv_fwd and gemm can be built", arch)


def _gemm(problem, arch):
    fields = dict(problem.spec)
    if not isinstance(fields["dtype"], str) or (arch, fields["dtype"]) not in TILES:
        offered = ", ".join(sorted({d for a, d in TILES if a == arch})) or "none"
        raise EntryError(problem.index, "dtype", f"expected an input type the gemm family has a tile for on {arch} ({offered}), got {fields['dtype']!r}", arch)
    m, n, k, dtype, out = (fields.pop(f) for f in ("m", "n", "k", "dtype", "out"))
    try:
        spec = spec_for(arch, m, n, k, dtype, out, **fields)
    except (GemmSpecError, TileError) as e:
        raise spec_error(problem.index, e, arch) from None
    split = select_split_k(spec.m, spec.n, spec.k, arch, spec.block_m, spec.block_n, spec.block_k)
    groups = spec.grid()[0] * spec.grid()[1]
    config = f"mma {spec.mma}, block {spec.block_m}x{spec.block_n}x{spec.block_k}, waves {spec.waves_m}x{spec.waves_n}"
    reasons = (
        f"gemm: the one GEMM family; its tile for {arch} {dtype} (library/gemm/tiles.py): {config}",
        f"workgroups: {groups} block{'s' if groups != 1 else ''} of C on {num_cus(arch)} CUs",
        f"split-K: the planner (select_split_k) picks {split}" + ("" if split == 1 else "; the gemm family has no split-K yet, so the kernel runs unsplit"),
    )
    return Choice("gemm", "gemm.gemm", spec, config, reasons)


CHOOSERS = {
    "conv_fwd": _conv_fwd,
    "conv_dgrad": _no_family,
    "conv_wgrad": _no_family,
    "gemm": _gemm,
}


def choose(problem, arch):
    """The Choice for `problem` on `arch`; EntryError (with .arch) when none."""
    return CHOOSERS[problem.op](problem, arch)
