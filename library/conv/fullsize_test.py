"""A conv family at full size (fullsize_emit.py's cases: every ResNet-50
layer, the 3-D video layer, and for some families a network's depthwise
layers, each on every conv arch), emitted for the flavor under test by a
build action: every case on an arch the flavor knows was lowered (no
refusal), and compiles and links with no spill and within its arch's
registers (compile_checks.compiled). With ROCKE_FULLSIZE_MATRIX set, each
runs its arch's matrix instruction (compile_checks.MATRIX_INSTRUCTION); an
f32 atomic add in the IR is the arch's own instruction, never a
compare-and-swap loop. A case on an arch the flavor does not know (llvm20:
gfx1250) is the flavor's ArchDomainError, never a pass.

ROCKE_FULLSIZE_IRS and ROCKE_FULLSIZE_MANIFEST name the emitted files
(conv_fullsize_test in fullsize.bzl sets them, ROCKE_FULLSIZE_MATRIX and
ROCKE_LLVM)."""

import json
import os
import re

import pytest

from conv.compile_checks import MATRIX_INSTRUCTION, TC, compiled
from family import manifest
from lower import flavors

with open(os.environ["ROCKE_FULLSIZE_IRS"], encoding="utf-8") as f:
    IRS = json.load(f)
ENTRIES = manifest.read(os.environ["ROCKE_FULLSIZE_MANIFEST"], manifest.EMITTED_FIX)
KNOWN = flavors.get(TC.flavor).cpus
MATRIX = bool(os.environ.get("ROCKE_FULLSIZE_MATRIX"))


def test_every_case_on_a_known_arch_was_lowered():
    expected = sorted(i for i, e in ENTRIES.items() if e.arch in KNOWN)
    assert expected, f"no full-size case on an arch {TC.flavor} knows"
    assert sorted(IRS) == expected
    others = {i: e.error for i, e in ENTRIES.items() if e.arch not in KNOWN}
    assert set(others.values()) <= {"ArchDomainError"}, others


@pytest.mark.parametrize("case_id", sorted(IRS))
def test_layer_compiles_without_spills(case_id):
    entry, ir = ENTRIES[case_id], IRS[case_id]
    code = compiled(ir, entry.arch, entry.kernel)
    atomic = re.search(r"atomicrmw fadd [^\n]*, float ", ir) is not None
    if not (MATRIX or atomic):
        return
    text = TC.disassemble(code, entry.arch)
    if MATRIX:
        assert MATRIX_INSTRUCTION[entry.arch] in text, (
            f"{case_id} with {TC.flavor}: no {MATRIX_INSTRUCTION[entry.arch]}"
        )
    if atomic:  # the f32 atomic add is the arch's own instruction, not a compare-and-swap loop
        assert "global_atomic_add_f32" in text and "cmpswap" not in text, f"{case_id} with {TC.flavor}"
