"""Validity gate: every case's IR through the real LLVM of one flavor.

Compile for the case's arch (LLVM parses and verifies first), reject an
indirect call (an intrinsic the LLVM does not know), link with
--no-undefined, record the resource figures (written to resources.json among
the test's outputs), and fail a case that spills or declares more registers
than its arch has (budget.py).
"""

import json
import os

import pytest

from family import manifest
from family.budget import overruns
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()
with open(os.environ["ROCKE_FAMILY_IRS"]) as f:
    IRS = json.load(f)
ENTRIES = manifest.read(os.environ["ROCKE_FAMILY_MANIFEST"], manifest.EMITTED_FIX)
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


@pytest.mark.parametrize("case_id", sorted(IRS))
def test_case_verifies_compiles_and_links(case_id):
    ir = IRS[case_id]
    arch = ENTRIES[case_id].arch
    built = TC.build(ir, arch, case_id)  # parses and verifies first; no indirect call
    assert built.code_object[:4] == b"\x7fELF"
    figures = dict(built.figures)
    del figures["waves"]
    FIGURES[case_id] = dict(figures, arch=arch)
    assert not overruns(figures, arch), f"{case_id} on {arch} with {TC.flavor}: " + "; ".join(overruns(figures, arch))
