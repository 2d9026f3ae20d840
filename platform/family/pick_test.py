"""machine.pick, the workgroups a catalog's verification launches, and
machine.outcome, its verdict as data, on hand-made launches (no emulator)."""

import numpy as np
import pytest

from family import bound, machine
from family.family import NumericCheck


def _pick(grid, count, seed=0, whole=()):
    return machine.pick(grid, count, np.random.default_rng(seed), whole)


def test_the_first_and_last_tile_come_first_then_interior_ones():
    chosen = _pick((5, 7, 1), 4)
    assert chosen[:2] == [(0, 0, 0), (4, 6, 0)]
    assert len(chosen) == 4 == len(set(chosen))
    assert all(0 < x < 4 and 0 < y < 6 for x, y, _ in chosen[2:])  # strictly interior


def test_the_seed_chooses_the_interior_tiles_and_repeats_them():
    assert _pick((30, 30), 6, seed=1) == _pick((30, 30), 6, seed=1)
    assert _pick((30, 30), 6, seed=1)[2:] != _pick((30, 30), 6, seed=2)[2:]


def test_a_grid_of_no_more_tiles_than_asked_runs_whole():
    assert sorted(_pick((2, 1, 1), 4)) == [(0, 0, 0), (1, 0, 0)]


def test_a_one_tile_wide_axis_leaves_the_others_to_draw_from():
    chosen = _pick((1, 9, 1), 5)
    assert chosen[:2] == [(0, 0, 0), (0, 8, 0)] and len(set(chosen)) == 5


def test_every_workgroup_along_a_whole_axis_runs_for_each_tile():
    # A split-K grid: z holds 3 slices; 2 of the 4 x 4 tiles, each with all 3 slices.
    chosen = _pick((4, 4, 3), 2, whole=(2,))
    assert chosen == [(0, 0, 0), (0, 0, 1), (0, 0, 2), (3, 3, 0), (3, 3, 1), (3, 3, 2)]


def test_fewer_than_one_tile_is_refused():
    with pytest.raises(ValueError, match="expected a positive number of workgroups, got 0"):
        _pick((4, 4), 0)


def _launched(values, got, sampled):
    """A Run of an f32 output whose reference is `values`, holding `got`,
    from a NaN fill (the elements `got` leaves NaN were not written)."""
    want = bound.Expected(values, np.abs(values), 1, "f32")
    out = np.array(got, np.float32)
    numeric = NumericCheck([out], (1, 1, 1), {0: want}, lambda v: v.astype(np.float64))
    initial = {0: np.full(out.shape, np.nan, np.float32)}
    return machine.Run("case", numeric, sampled, initial, None)


def test_outcome_ok_over_the_written_elements_alone():
    values = np.arange(1.0, 7.0).reshape(2, 3)
    got = np.full((2, 3), np.nan)
    got[1] = values[1]  # only the second row was written
    assert machine.outcome(_launched(values, got, [(0, 0, 0)])) == {"result": "ok"}


def test_outcome_names_the_largest_error_and_the_first_wrong_element():
    values = np.arange(1.0, 7.0).reshape(2, 3)
    got = values.copy()
    got[0, 2] += 0.5
    got[1, 1] -= 2.0
    result = machine.outcome(_launched(values, got, None))
    assert result == {
        "result": "mismatch",
        "argument": 0,
        "wrong": 2,
        "of": 6,
        "largest_error": 2.0,
        "first_wrong": {"index": [0, 2], "got": 3.5, "expected": 3.0, "bound": result["first_wrong"]["bound"]},
    }
    assert 0 < result["first_wrong"]["bound"] < 1e-6


def test_outcome_of_a_sample_that_wrote_nothing_is_a_mismatch():
    values = np.ones((2, 2))
    result = machine.outcome(_launched(values, np.full((2, 2), np.nan), [(0, 0, 0)]))
    assert result == {"result": "mismatch", "argument": 0, "wrong": 0, "of": 0, "largest_error": None}


def test_a_chained_outcome_compares_the_covered_elements_alone():
    # A reduce fed a partly written workspace (Chained.covered): what it wrote outside the covered
    # elements is not compared, a wrong covered element is.
    values = np.arange(1.0, 7.0).reshape(2, 3)
    got = values.copy()
    got[0] = -1.0  # written from slices the first kernel did not write
    launched = _launched(values, got, [(0, 0, 0)])
    launched.covered = {0: np.array([[False] * 3, [True] * 3])}
    assert machine.outcome(launched) == {"result": "ok"}
    launched.covered = {0: np.array([[False, False, True], [True] * 3])}
    result = machine.outcome(launched)
    assert (result["wrong"], result["of"], result["first_wrong"]["index"]) == (1, 4, [0, 2])


def test_a_chained_kernel_runs_the_first_last_and_random_of_its_workgroups():
    candidates = [(g, 0, 0) for g in range(3, 40)]
    chosen = machine.pick_among(candidates, 4, np.random.default_rng(1))
    assert len(chosen) == 4 and chosen[0] == (3, 0, 0) and chosen[-1] == (39, 0, 0)
    assert chosen == sorted(set(chosen)) and set(chosen) <= set(candidates)
    assert machine.pick_among(candidates[:3], 4, np.random.default_rng(1)) == candidates[:3]
