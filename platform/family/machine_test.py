"""Machine gate: every case of a family, on every arch the emulator runs,
built by one flavor's LLVM from the IR its emit genrule wrote (by the
NAME_objects_F action the validity gate reads too: objects.py), launched in
the emulator on the numeric gate's inputs and compared with numpy
(machine.py). It reads the family only as files its actions wrote: the
numeric checks (NAME_checks, checks.py), the manifest, the code objects and,
on a mismatch, the kernel's .rk text for the interpreter's verdict; so an
edit that changes none of them (a comment) leaves it cached.

A case the emit gate rejected (a Refusal, an ArchDomainError) is an expected
rejection, recorded as the numeric gate records it (the "rejected" property).
A case on an arch the emulator does not run is listed in the log, with the
reason, by its own test: it is never a passing case.

The coverage test comes first: every mnemonic of every code object the
flavor builds for the family, executed or not, must have semantics; it names
the missing ones by arch with the cases that hold them.
"""

import collections
import functools
import gc
import json
import os

import pytest

from emu import emu
from family import checks, machine, manifest, objects
from ir.parser import parse
from toolchains.llvm.llvm import Toolchain

NAME, CASES = checks.read(os.environ["ROCKE_FAMILY_CHECKS"])
TC = Toolchain.current()
with open(os.environ["ROCKE_FAMILY_RK"]) as f:
    RK = json.load(f)
FLAVOR, BUILT = objects.read(os.environ["ROCKE_FAMILY_OBJECTS"])
ENTRIES = manifest.read(os.environ["ROCKE_FAMILY_MANIFEST"], manifest.EMITTED_FIX)
RUN = sorted(i for i, e in ENTRIES.items() if e.arch in emu.EMULATED)
NOT_EMULATED = sorted(i for i, e in ENTRIES.items() if e.arch not in emu.EMULATED)


def _code_object(case_id):
    """The case's code object; a case LLVM refused fails here and in the validity gate, with LLVM's words."""
    built = BUILT[case_id]
    assert "error" not in built, f"{case_id} ({FLAVOR}): LLVM refused it: {built['error']}"
    return built["code_object"]


@functools.cache
def _programs():
    """Every built case's kernel on an emulated arch decoded (emu.programs: one llvm-objdump run per arch),
    by case id: once, for the coverage test and each case's own. They live until the gate ends, so they are
    frozen out of the garbage collector's walks (which cost seconds, the last one at pytest's exit)."""
    ids = [i for i in RUN if not ENTRIES[i].error and "error" not in BUILT[i]]
    programs = emu.programs([(_code_object(i), ENTRIES[i].kernel) for i in ids], TC)
    gc.freeze()
    return dict(zip(ids, programs))


def _program(case_id):
    """The case's decoded kernel; a case LLVM refused fails here (_code_object)."""
    _code_object(case_id)
    return _programs()[case_id]


def test_every_mnemonic_is_implemented(record_property):
    missing = collections.defaultdict(set)  # (arch, mnemonic) -> case ids
    mnemonics = collections.defaultdict(set)
    for case_id in RUN:
        entry = ENTRIES[case_id]
        if entry.error:
            continue
        program = _program(case_id)
        mnemonics[entry.arch] |= {i.mnemonic for i in program.instructions}
        for error in program.unimplemented():
            missing[(entry.arch, error.mnemonic)].add(case_id)
    for arch in sorted(mnemonics):
        lacking = sorted(name for a, name in missing if a == arch)
        record_property("mnemonics", f"{arch}: {len(mnemonics[arch])} distinct, lacking {', '.join(lacking) or 'none'}")
    assert not missing, f"{NAME} ({TC.flavor}): mnemonics the emulator lacks: " + "; ".join(
        f"{arch} {name} (in {len(ids)} cases, e.g. {min(ids)})" for (arch, name), ids in sorted(missing.items())
    )


def test_manifest_lists_every_case():
    assert sorted(ENTRIES) == sorted(CASES)
    assert all(ENTRIES[i].error == c.refused for i, c in CASES.items() if c.refused)
    assert FLAVOR == TC.flavor
    assert sorted(BUILT) == sorted(i for i, e in ENTRIES.items() if not e.error)
    assert RUN, f"no case of {NAME} is on an emulated arch ({', '.join(emu.EMULATED)})"


def test_cases_not_emulated_are_listed(record_property):
    for i in NOT_EMULATED:
        record_property(
            "not_emulated",
            f"{i}: {ENTRIES[i].arch} is not emulated (the emulator runs {', '.join(emu.EMULATED)}); not run, not "
            "passed",
        )
    assert not set(NOT_EMULATED) & set(RUN)


@pytest.mark.parametrize("case_id", RUN)
def test_case_runs_and_matches_numpy_or_is_rejected(case_id, record_property):
    entry = ENTRIES[case_id]
    if entry.error:
        rejection = entry.line()
        record_property("rejected", rejection)
        print(f"{rejection}: rejected by the emit gate")
        return
    case = CASES[case_id]
    launched = machine.check(
        case_id,
        case.numeric,
        TC,
        _code_object(case_id),
        entry.kernel,
        case.block,
        lambda: parse(RK[case_id]),
        program=_program(case_id),
    )
    for line in launched.log():
        record_property("machine", line)
