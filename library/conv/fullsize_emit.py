"""A conv family's full-size layers lowered for each flavor asked: the files
its full-size tests (fullsize_test.py, through conv_fullsize_test in
fullsize.bzl) read.

    fullsize_emit --family conv.direct_fwd --flavor llvm22 --irs OUT.irs.json --manifest OUT.manifest \\
                  [--flavor llvm23 --irs ... --manifest ...]... [--cases SET] \\
                  [--depthwise-from catalog/mobilenet_v2.json]

The cases, by SET (CASES):
  layers (the default): every ResNet-50 layer and the 3-D video layer
      (networks.py), and with --depthwise-from the depthwise layers of that
      problems file, at full size, each on every arch of case_archs.json
      (id LAYER_ARCH);
  igemm: every ResNet-50 layer, the 3-D video layer and the acceptance
      layer on every arch of igemm_tiles.json, with its tile (LAYER_ARCH),
      and the small-C layers of ROW_RUNS by row runs (LAYER_rows_ARCH);
  igemm_split: igemm's, and the late ResNet-50 layers at batch 1 split as
      the planner splits them (LAYER_split_ARCH);
  wgrad: those layers on every arch of wgrad_tiles.json with the split the
      planner picks, and the acceptance layer also unsplit and atomic
      (LAYER_MODE_ARCH).
A case on an arch the flavor does not know is its ArchDomainError.
emit.emit_flavors builds them (once) and lowers them as the emit gate does, so the files have the emit
gate's forms: the IR of every lowered case (canonical JSON, id -> text) and
a manifest recording a case the flavor cannot express, or the family
refuses, as a rejection with its error class. Emitting is a build action so
that an edit which leaves these bytes unchanged (a comment) leaves the
tests that read them cached.
"""

import argparse
import dataclasses
import json
import sys

from case_archs import ARCHS
from conv import igemm_tiles, networks, wgrad_spec
from conv.spec import ConvSpec
from conv.split_k import WgradSplitPolicy, select_split_k_fwd, select_split_k_wgrad
from family import emit, manifest
from family import family as families
from family.family import Case
from files.atomic import OutputError


# The implicit-GEMM families' layers: every ResNet-50 layer, the 3-D video layer and the acceptance layer.
MATRIX_LAYERS = {**networks.RESNET50, **networks.VIDEO, **networks.ACCEPTANCE}
# Layers conv_igemm_fwd gathers by row runs (IgemmSpec.row_runs), as the planner picks them for small C:
# ResNet-50's stem; C = 6 on 56x56 (a run of 18); C = 3, 3x3 stride 2 on 224x224 (a run of 9).
ROW_RUNS = {
    "conv1_7x7_s2": networks.RESNET50["conv1_7x7_s2"],
    "c6_3x3_56": ConvSpec(networks.BATCH, 6, 64, (56, 56), (3, 3), pad=(1, 1)),
    "c3_3x3_s2_224": ConvSpec(networks.BATCH, 3, 32, (224, 224), (3, 3), stride=(2, 2), pad=(1, 1)),
}
# The acceptance layer's other wgrad modes, beside the planner's choice.
WGRAD_EXTRA = {"res2_3x3_n2": (WgradSplitPolicy("none", 1), WgradSplitPolicy("atomic", 8))}


def cases(depthwise_from=None):
    """The full-size cases, layer by layer, each on every arch."""
    layers = {**networks.RESNET50, **networks.VIDEO}
    if depthwise_from:
        with open(depthwise_from, encoding="utf-8") as f:
            layers.update(networks.depthwise(json.load(f)))
    return [Case(f"{layer}_{arch}", arch, spec) for layer, spec in layers.items() for arch in ARCHS]


def igemm_cases():
    """MATRIX_LAYERS on every arch of the igemm tile table, with its tile; ROW_RUNS by row runs (LAYER_rows_ARCH)."""
    return [
        Case(f"{layer}_{arch}", arch, igemm_tiles.spec_for(arch, MATRIX_LAYERS[layer]))
        for layer in sorted(MATRIX_LAYERS)
        for arch in igemm_tiles.TILES
    ] + [
        Case(f"{layer}_rows_{arch}", arch, dataclasses.replace(igemm_tiles.spec_for(arch, spec), row_runs=True))
        for layer, spec in ROW_RUNS.items()
        for arch in igemm_tiles.TILES
    ]


def split_cases():
    """igemm_cases() and networks.SPLIT_AT_BATCH_1 at batch 1, split as the planner splits them."""
    split = []
    for layer in networks.SPLIT_AT_BATCH_1:
        for arch in igemm_tiles.TILES:
            spec = igemm_tiles.spec_for(arch, dataclasses.replace(networks.RESNET50[layer], n=1))
            case = Case(
                f"{layer}_split_{arch}", arch, dataclasses.replace(spec, split_k=select_split_k_fwd(spec, arch))
            )
            if case.spec.split_k < 2:
                raise emit.EmitError(
                    f"case {case.id}: expected the planner to split it (networks.SPLIT_AT_BATCH_1), got split_k 1"
                )
            split.append(case)
    return igemm_cases() + split


def wgrad_cases():
    """MATRIX_LAYERS on every arch of the wgrad tile table: the planner's split, and WGRAD_EXTRA's modes."""
    out = []
    for layer in sorted(MATRIX_LAYERS):
        for arch in wgrad_spec.TILES:
            spec = wgrad_spec.spec_for(arch, MATRIX_LAYERS[layer])
            policies = (select_split_k_wgrad(spec, arch),) + WGRAD_EXTRA.get(layer, ())
            for policy in dict.fromkeys(policies):
                split = policy.apply(spec)
                out.append(Case(f"{layer}_{split.mode}_{arch}", arch, split))
    return out


# The flags given once per flavor.
_PER_FLAVOR = ("--flavor", "--irs", "--manifest")

CASES = {
    "layers": lambda args: cases(args.depthwise_from),
    "igemm": lambda args: igemm_cases(),
    "igemm_split": lambda args: split_cases(),
    "wgrad": lambda args: wgrad_cases(),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--family", required=True, help="the module defining FAMILY, e.g. conv.direct_fwd")
    for flag in _PER_FLAVOR:
        parser.add_argument(flag, required=True, action="append", help="once per flavor, in the same order")
    parser.add_argument("--cases", choices=sorted(CASES), default="layers", help="the case set (the module doc)")
    parser.add_argument(
        "--depthwise-from", help="a problems file whose depthwise layers are cases too (--cases layers)"
    )
    args = parser.parse_args(argv)
    if args.depthwise_from and args.cases != "layers":
        parser.error(
            f"--depthwise-from adds layers to --cases layers: expected no --depthwise-from with --cases {args.cases}"
        )
    counts = {flag: len(getattr(args, flag[2:])) for flag in _PER_FLAVOR}
    if len(set(counts.values())) != 1:
        parser.error(
            f"expected {', '.join(_PER_FLAVOR)} once per flavor, got {', '.join(f'{n} {f}' for f, n in counts.items())}"
        )
    twice = sorted({f for f in args.flavor if args.flavor.count(f) > 1})
    if twice:
        parser.error(f"expected each flavor once, got {', '.join(twice)} more than once")
    fam = families.load(args.family)
    try:
        emitted = emit.emit_flavors(fam, CASES[args.cases](args), args.flavor)
        for flavor, irs_path, manifest_path in zip(args.flavor, args.irs, args.manifest, strict=True):
            irs, _, entries = emitted[flavor]
            head = [
                f"# Generated by library/conv/fullsize_emit.py for the full-size test of {fam.name}, flavor {flavor}.",
                "# No golden: the test compiles every case. Edit the builder, not this file.",
            ]
            emit.write(irs_path, emit.text_map(irs))
            emit.write(manifest_path, manifest.render(entries, head))
    except (emit.EmitError, OutputError) as e:
        print(f"fullsize_emit: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
