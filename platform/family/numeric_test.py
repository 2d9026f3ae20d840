"""Numeric gate: every case of a family run by the reference interpreter and
compared with the family's numpy reference. Flavor-free."""

import os

import numpy as np
import pytest

from family import family as families
from interp.interp import run

FAMILY = families.load(os.environ["ROCKE_FAMILY_MODULE"])
CASES = {c.id: c for c in FAMILY.cases}


def test_family_has_cases():
    assert CASES


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_case_matches_numpy(case_id):
    case = CASES[case_id]
    problem = FAMILY.problem(case, np.random.default_rng(families.seed(case_id)))
    run(FAMILY.build(case), problem.grid, problem.args)
    for index, want in problem.expected.items():
        got = problem.decode(problem.args[index])
        np.testing.assert_allclose(got, want, rtol=problem.rtol, atol=problem.atol, err_msg=f"{case_id}: argument {index}")
