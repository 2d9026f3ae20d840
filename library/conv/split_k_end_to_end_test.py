"""Split-K forward end to end: conv_igemm_fwd split S ways writes the f32
workspace, conv_fwd_split_k_reduce turns it into the output, both run by the
reference interpreter, against numpy's forward convolution (common.reference)
of the whole layer, bias and relu included; and the reduce's Chained check
(split_k_reduce.chain), the one rocke build --verify and rocke verify make,
on a workspace of which only some elements were written."""

import dataclasses
import math

import numpy as np
import pytest

from conv import common, igemm_fwd, split_k_reduce
from conv.igemm_tiles import spec_for
from conv.reduce_spec import ReduceSpec, vector_width
from conv.spec import ConvSpec
from family import bound
from family.family import Case
from interp.interp import run

# Layer shapes (scaled down) with the arch each runs on.
LAYERS = {
    "res5_3x3_bias": ("gfx942", ConvSpec(1, 64, 64, (5, 5), (3, 3), pad=(1, 1), bias=True, activation="relu")),
    "nchw_grouped_bf16_bias": (
        "gfx1201",
        ConvSpec(
            1, 32, 24, (6, 6), (3, 3), pad=(1, 1), groups=2, layout="NCHW", dtype="bf16", bias=True, activation="relu"
        ),
    ),
    "video_3d_stride": ("gfx1250", ConvSpec(1, 16, 8, (3, 6, 6), (3, 3, 3), stride=(1, 2, 2), pad=(1, 1, 1))),
    "resnet_1x1_stride2_bf16": (
        "gfx950",
        ConvSpec(2, 160, 40, (8, 8), (1, 1), stride=(2, 2), dtype="bf16", bias=True, activation="relu"),
    ),
}


def _layer(arch, conv, split, rng):
    """(output, bound.Expected of the whole layer): the two kernels run in turn."""
    spec = dataclasses.replace(spec_for(arch, conv), split_k=split)
    x, x64 = common.encode(rng.standard_normal(conv.input_shape()), conv.dtype)
    w, w64 = common.encode(
        rng.standard_normal(conv.weight_shape()) / math.sqrt(conv.c_per_group * math.prod(conv.filter)), conv.dtype
    )
    bias = rng.standard_normal(conv.k).astype(np.float32) if conv.bias else None
    elements = math.prod(conv.output_shape())
    ws = np.full(split * elements, np.nan, np.float32)
    run(igemm_fwd.build(Case("split", arch, spec)), spec.grid(), [x, w, ws])
    store_type, poison = common.POISON[conv.dtype]
    y = np.full(conv.output_shape(), poison, store_type)
    reduce = split_k_reduce.build(Case("reduce", arch, ReduceSpec(conv, split)))
    run(reduce, split_k_reduce.grid(elements), [ws, y] + ([bias] if bias is not None else []))
    return common.decode(y, conv.dtype), common.expected(conv, x64, w64, bias)


@pytest.mark.parametrize("split", [2, 4])
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_split_then_reduce_is_the_convolution(name, split):
    arch, conv = LAYERS[name]
    got, want = _layer(arch, conv, split, np.random.default_rng(split))
    want.check(got, f"{name} split {split}")


def test_a_reduce_of_too_few_slices_fails_the_check():
    # The same pipeline with the reduce told S - 1: the last slice's sums are lost.
    arch, conv = LAYERS["res5_3x3_bias"]
    original = split_k_reduce.reduce_kernel

    def short(name, arch, elements, splits, dtype, *epilogue):
        return original(name, arch, elements, splits - 1, dtype, *epilogue)

    split_k_reduce.reduce_kernel = short
    try:
        got, want = _layer(arch, conv, 4, np.random.default_rng(4))
    finally:
        split_k_reduce.reduce_kernel = original
    assert want.misses(got).any()


def _chained(arch, conv, split, rng, written_fraction):
    """The split kernel through the interpreter on its numeric check's inputs, then the reduce's Chained check
    of that workspace, told that only the first `written_fraction` of the output's elements were written."""
    spec = dataclasses.replace(spec_for(arch, conv), split_k=split)
    producer = igemm_fwd.numeric_check(Case("split", arch, spec), rng)
    run(igemm_fwd.build(Case("split", arch, spec)), producer.grid, producer.args)
    ws = producer.args[2]
    written = np.zeros(ws.shape, bool).reshape(split, -1)
    written[:, : int(written.shape[1] * written_fraction)] = True
    ws.reshape(split, -1)[~written] = np.nan  # what a sampled launch leaves: NaN where it did not write
    case = Case("reduce", arch, ReduceSpec(conv, split))
    return case, split_k_reduce.chain(case, producer.args, {2: written.reshape(ws.shape)}, rng)


def _reduce(case, chained):
    """The reduce through the interpreter on the Chained check: its output on the covered elements, and theirs."""
    numeric = chained.numeric
    run(split_k_reduce.build(case), numeric.grid, numeric.args)
    covered = chained.covered[1]
    want = numeric.expected[1]
    got = numeric.decode(numeric.args[1])[covered]
    return got, bound.Expected(want.values[covered], want.magnitudes[covered], want.length, want.dtype)


def test_the_chained_reduce_of_the_written_slices_is_the_convolution():
    arch, conv = LAYERS["res5_3x3_bias"]
    case, chained = _chained(arch, conv, 4, np.random.default_rng(7), 0.5)
    covered = chained.covered[1]
    assert 0 < covered.sum() < covered.size
    # The workgroups launched are those holding a covered element, and no other.
    per = split_k_reduce.WORKGROUP * vector_width(math.prod(conv.output_shape()))
    assert chained.workgroups == [(g, 0, 0) for g in sorted(set(np.flatnonzero(covered) // per))]
    got, want = _reduce(case, chained)
    want.check(got, "chained reduce")


def test_a_wrong_partial_sum_is_a_wrong_chained_output():
    arch, conv = LAYERS["res5_3x3_bias"]
    case, chained = _chained(arch, conv, 2, np.random.default_rng(8), 1.0)
    chained.numeric.args[0][1].reshape(-1)[5] += 100.0  # one element of the second slice wrong, past the relu
    got, want = _reduce(case, chained)
    assert np.flatnonzero(want.misses(got)).tolist() == [5]


def test_a_reduce_of_dw_is_not_followed():
    # wgrad's two-stage split: the reduce is checked alone, even when its
    # producer's arguments have the shapes of a forward split's.
    arch, conv = LAYERS["res5_3x3_bias"]
    conv = dataclasses.replace(conv, bias=False, activation="none")
    case = Case("reduce", arch, ReduceSpec(conv, 2, "dw"))
    args = [np.zeros(conv.input_shape(), np.float16), np.zeros(conv.weight_shape(), np.float16)]
    ws = np.zeros((2, *conv.output_shape()), np.float32)
    assert split_k_reduce.chain(case, [*args, ws], {2: np.ones(ws.shape, bool)}, np.random.default_rng(0)) is None
    y_case = Case("reduce", arch, ReduceSpec(conv, 2))
    assert split_k_reduce.chain(y_case, [*args, ws], {2: np.ones(ws.shape, bool)}, np.random.default_rng(0)) is not None


def test_a_workspace_not_of_y_slices_is_not_followed():
    # A flat workspace: the reduce is checked alone.
    arch, conv = LAYERS["res5_3x3_bias"]
    case = Case("reduce", arch, ReduceSpec(conv, 2))
    elements = math.prod(conv.output_shape())
    args = [np.zeros(conv.input_shape(), np.float16), np.zeros(conv.weight_shape(), np.float16)]
    flat = np.zeros(2 * elements, np.float32)
    assert split_k_reduce.chain(case, [*args, flat], {2: np.ones(flat.shape, bool)}, np.random.default_rng(0)) is None
