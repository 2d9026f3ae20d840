"""Validity gate: every case's IR through the real LLVM of one flavor.

The NAME_objects_F action (build_objects.py) built each case for its arch:
LLVM parsed and verified it, compiled it, an indirect call (an intrinsic
the LLVM does not know) was refused, and it was linked with --no-undefined.
This gate fails a case LLVM refused, with LLVM's words, and a case that
spills or declares more registers than its arch has (objects.faults); it
writes the resource figures to resources.json among the test's outputs.
"""

import json
import os

import pytest

from family import manifest, objects

with open(os.environ["ROCKE_FAMILY_IRS"]) as f:
    IRS = json.load(f)
ENTRIES = manifest.read(os.environ["ROCKE_FAMILY_MANIFEST"], manifest.EMITTED_FIX)
FLAVOR, BUILT = objects.read(os.environ["ROCKE_FAMILY_OBJECTS"])
FIGURES: dict = {}


@pytest.fixture(scope="module", autouse=True)
def write_figures():
    yield
    out = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
    if out:
        with open(os.path.join(out, "resources.json"), "w") as f:
            json.dump(FIGURES, f, indent=1, sort_keys=True)


def test_every_case_was_emitted_or_rejected():
    assert sorted(IRS) == sorted(i for i, e in ENTRIES.items() if not e.error)
    assert IRS, "no case was emitted for this flavor"


def test_every_emitted_case_was_built_by_this_flavor():
    assert FLAVOR == os.environ["ROCKE_FLAVOR"]
    assert sorted(BUILT) == sorted(IRS)


@pytest.mark.parametrize("case_id", sorted(IRS))
def test_case_verifies_compiles_and_links(case_id):
    built = BUILT[case_id]
    assert built["arch"] == ENTRIES[case_id].arch
    faults = objects.faults(case_id, built, FLAVOR)
    if "figures" in built:
        FIGURES[case_id] = dict(objects.figures(built), arch=built["arch"])
    assert not faults, "; ".join(faults)
