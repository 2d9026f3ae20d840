"""The machine gate can fail: a real code object of the family with one
instruction patched makes machine.check fail, naming the case.

The patch: a wait that retired a vector memory load (one that landed data
in the unpatched run) becomes s_nop 0, so the loaded value is used before
it arrives. Waits are tried in address order until one changes the
numbers (a later wait may cover for an earlier one); the unpatched code
object must pass first. As the machine gate, it reads the family only as
files its actions wrote (the numeric checks, one flavor's manifest, code
objects and .rk texts)."""

import json
import os

import pytest

from emu import emu
from family import checks, machine, manifest, objects
from ir.parser import parse
from toolchains.llvm.llvm import Toolchain

NAME, CASES = checks.read(os.environ["ROCKE_FAMILY_CHECKS"])
TC = Toolchain.current()
_, BUILT = objects.read(os.environ["ROCKE_FAMILY_OBJECTS"])
ENTRIES = manifest.read(os.environ["ROCKE_FAMILY_MANIFEST"], manifest.EMITTED_FIX)
with open(os.environ["ROCKE_FAMILY_RK"]) as f:
    RK = json.load(f)
LOAD_WAITS = ("s_waitcnt", "s_wait_loadcnt")


def _first_case():
    """The first case of the family on gfx942 (else any emulated arch) that emitted and built."""
    ordered = sorted(CASES, key=lambda i: (CASES[i].arch != "gfx942", CASES[i].arch not in emu.EMULATED))
    for case_id in ordered:
        if CASES[case_id].arch in emu.EMULATED and not ENTRIES[case_id].error and "error" not in BUILT[case_id]:
            return case_id
    pytest.fail(f"{NAME} has no case on an emulated arch that builds")


def test_a_removed_wait_fails_the_gate_naming_the_case(record_property):
    case_id = _first_case()
    case, kernel_name, code = CASES[case_id], ENTRIES[case_id].kernel, BUILT[case_id]["code_object"]

    def check(code_object, program=None):
        fresh = checks.read(os.environ["ROCKE_FAMILY_CHECKS"])[1][case_id].numeric  # outputs start as their fill
        return machine.check(
            case_id, fresh, TC, code_object, kernel_name, case.block, lambda: parse(RK[case_id]), program=program
        )

    program = emu.program(code, kernel_name, TC)
    launched = check(code, program)  # the real code object passes
    by_address = {i.address: i for i in program.instructions}
    waits = sorted(
        a
        for a, (_, landed) in launched.result.waits.items()
        if landed
        and by_address[a].mnemonic in LOAD_WAITS
        and ("vmcnt" in by_address[a].text or "loadcnt" in by_address[a].text)
    )
    assert waits, f"{case_id}: no wait retired a load in the unpatched run"
    for address in waits:
        patched = emu.patch(code, address, [emu.S_NOP_0])
        try:
            check(patched)
        except machine.Mismatch as e:
            assert case_id in str(e)
            record_property(
                "patched",
                f"{case_id} ({TC.flavor}): {by_address[address].text.split('//')[0].strip()} at 0x{address:x} -> "
                "s_nop 0",
            )
            record_property("gate_failed", " | ".join(str(e).splitlines()[:6]))
            return
    pytest.fail(f"{case_id}: no removed wait of {len(waits)} made the machine gate fail")
