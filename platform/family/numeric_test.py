"""Numeric gate: every case of a family run by the reference interpreter and
compared with the family's numpy reference, element by element within the
bound of platform/family/bound.py. Flavor-free.

A case the family refuses (family.Refusal, raised by its build) has no
numbers to check: it is recorded as an expected rejection, as the emit gate
records it (its manifest line `reject ID arch=ARCH error=CLASS`, here the
test's "rejected" property, which py_pytest's runner prints after the run and
writes to Bazel's test.xml), and its problem is never made.
Which cases are refused is pinned by the goldens' manifests; any other
error fails the case, naming it."""

import os

import pytest

from family import family as families
from family import manifest
from interp.interp import run

FAMILY = families.load(os.environ["ROCKE_FAMILY_MODULE"])
CASES = {c.id: c for c in FAMILY.cases}


def test_family_has_cases():
    assert CASES


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_case_matches_numpy_or_is_refused(case_id, record_property):
    case = CASES[case_id]
    try:
        kernel = FAMILY.build(case)
    except families.Refusal as e:
        rejection = manifest.Entry(case.id, case.arch, error=type(e).__name__).line()
        record_property("rejected", rejection)
        print(f"{rejection}: {e}")
        return
    problem = FAMILY.numeric(case)
    run(kernel, problem.grid, problem.args)
    problem.check(case_id)
