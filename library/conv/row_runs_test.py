"""conv_igemm_fwd's row runs (row_runs.py): which layers they take, the
reduction they pad, the first row their fast loop may read (against a
brute force over every pixel's runs), and that the numeric check fails on
a row-runs kernel that reads a wrong run."""

import dataclasses
import itertools
import math

import numpy as np
import pytest

from conv import row_runs
from conv.cases import IGEMM_FWD_ROWS
from conv.igemm_fwd import FAMILY, build, numeric_check
from conv.igemm_tiles import IgemmSpecError, spec_for
from conv.spec import ConvSpec
from interp.interp import run

STEM = ConvSpec(1, 3, 64, (224, 224), (7, 7), stride=(2, 2), pad=(3, 3))


def test_the_stem_pads_each_filter_row_of_21_to_the_k_step():
    spec = dataclasses.replace(spec_for("gfx942", STEM), row_runs=True)
    assert (row_runs.piece(STEM), row_runs.rows(STEM)) == (21, 7)
    assert spec.gemm == (112 * 112, 64, 7 * 32)
    assert spec.to_json()["row_runs"] is True and "row_runs" not in spec_for("gfx942", STEM).to_json()


@pytest.mark.parametrize(
    "conv, words",
    [
        (dataclasses.replace(STEM, layout="NCHW"), "channels last"),
        (ConvSpec(1, 4, 64, (8, 8), (3, 3), groups=2), "one group"),
        (ConvSpec(1, 3, 64, (8, 8), (3, 3), dilation=(1, 2)), "no dilation in the last dim"),
        (ConvSpec(1, 12, 64, (8, 8), (3, 3)), "at most 32 elements"),
        (ConvSpec(1, 3, 64, (8, 8), (3, 2)), "at least 8 elements"),
        (ConvSpec(1, 3, 64, (9, 9, 9), (8, 4, 3)), "at most 31 filter rows"),
    ],
)
def test_a_layer_whose_rows_are_no_runs_is_refused_naming_why(conv, words):
    with pytest.raises(IgemmSpecError, match=f"IgemmSpec.row_runs: expected .*{words}"):
        dataclasses.replace(spec_for("gfx942", conv), row_runs=True)


def test_a_row_runs_spec_is_never_split():
    with pytest.raises(IgemmSpecError, match="IgemmSpec.split_k: expected 1 for a spec with row_runs"):
        dataclasses.replace(spec_for("gfx942", STEM), row_runs=True, split_k=2)


def _runs(c):
    """(row, index in x's pixels of its run's first element) for each im2col row and each of
    its filter rows that lies inside the image, in row order."""
    for row, (n, *o) in enumerate(itertools.product(range(c.n), *(range(x) for x in c.output))):
        first = [oi * s - p for oi, s, p in zip(o, c.stride, c.pad)]
        for ts in itertools.product(*(range(f) for f in c.filter[:-1])):
            line = [f + t * d for f, t, d in zip(first, ts, c.dilation)]
            if not all(0 <= x < size for x, size in zip(line, c.spatial)):
                continue
            index = n
            for x, size in zip(line + [first[-1]], c.spatial):
                index = index * size + x
            yield row, index


def _first_safe_row(c):
    """The row after the last whose run (of a filter row inside the image) starts before x."""
    return max((row for row, index in _runs(c) if index < 0), default=-1) + 1


@pytest.mark.parametrize(
    "conv",
    [STEM, *IGEMM_FWD_ROWS.values()],
    ids=lambda c: "x".join(map(str, c.spatial)) + "_p" + "_".join(map(str, c.pad)),
)
def test_fast_from_is_the_first_row_no_run_starts_before_x(conv):
    # fast_from may be later than needed, never earlier: it takes an outer line's first input
    # position, not its first one a filter row reaches (with dilation, up to dilation lines later).
    got, need = row_runs.fast_from(conv), _first_safe_row(conv)
    assert need <= got <= need + conv.dilation[0] * math.prod(conv.output[1:])


def _first_run_past_x(c):
    """The first row with a run (of a filter row inside the image) that ends past x's last element; None: none."""
    end = math.prod(c.input_shape()) // c.c
    return next((row for row, index in _runs(c) if index + c.filter[-1] > end), None)


@pytest.mark.parametrize("conv", [STEM, *IGEMM_FWD_ROWS.values(), dataclasses.replace(STEM, pad=(3, 2))])
def test_fast_to_ends_before_the_first_row_whose_run_ends_past_x(conv):
    got, need = row_runs.fast_to(conv), _first_run_past_x(conv)
    assert got == 0 if need is None else 0 < got <= need


def test_the_stem_sends_its_first_two_output_lines_through_the_guarded_loop():
    # Line 1's first two pixels start their run (input line 0, x = -3 and -1) before x.
    assert _first_safe_row(STEM) == 112 + 2
    assert row_runs.fast_from(STEM) == 2 * 112


def test_a_row_runs_kernel_matches_numpy_and_misses_with_two_filter_rows_swapped():
    case = next(c for c in FAMILY.cases if c.id == "rows_c6_3x3_bf16_gfx942")
    p = numeric_check(case, np.random.default_rng(1))
    run(build(case), p.grid, p.args)
    want = p.expected[2]
    want.check(p.decode(p.args[2]), "the kernel's output")
    q = numeric_check(case, np.random.default_rng(1))
    w = q.args[1]  # [K, R, S, C]
    w[:, [0, 1]] = w[:, [1, 0]]
    run(build(case), q.grid, q.args)
    assert want.misses(q.decode(q.args[2])).any()
