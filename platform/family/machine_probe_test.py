"""The machine gate can fail: a real code object of the family with one
instruction patched makes machine.check fail, naming the case.

The patch: a wait that retired a vector memory load (one that landed data
in the unpatched run) becomes s_nop 0, so the loaded value is used before
it arrives. Waits are tried in address order until one changes the
numbers (a later wait may cover for an earlier one); the unpatched code
object must pass first."""

import os

import pytest

from emu import emu
from family import family as families
from family import machine
from lower.llvm import lower
from toolchains.llvm.llvm import Toolchain

FAMILY = families.load(os.environ["ROCKE_FAMILY_MODULE"])
TC = Toolchain.current()
LOAD_WAITS = ("s_waitcnt", "s_wait_loadcnt")


def _first_case():
    """The first case of the family on gfx942 (else any emulated arch) that builds."""
    ordered = sorted(FAMILY.cases, key=lambda c: (c.arch != "gfx942", c.arch not in emu.EMULATED))
    for case in ordered:
        if case.arch not in emu.EMULATED:
            continue
        try:
            kernel = FAMILY.build(case)
        except families.Refusal:
            continue
        return case, kernel
    pytest.fail(f"{FAMILY.name} has no case on an emulated arch that builds")


def test_a_removed_wait_fails_the_gate_naming_the_case(record_property):
    case, kernel = _first_case()
    block = kernel.attrs["workgroup_size"]
    code = TC.build(lower(kernel, TC.flavor), case.arch, kernel.name).code_object
    launched = machine.check(FAMILY, case, TC, code, kernel.name, block)  # the real code object passes
    program = emu.program(code, kernel.name, TC)
    by_address = {i.address: i for i in program.instructions}
    waits = sorted(
        a
        for a, (_, landed) in launched.result.waits.items()
        if landed
        and by_address[a].mnemonic in LOAD_WAITS
        and ("vmcnt" in by_address[a].text or "loadcnt" in by_address[a].text)
    )
    assert waits, f"{case.id}: no wait retired a load in the unpatched run"
    for address in waits:
        patched = emu.patch(code, address, [emu.S_NOP_0])
        try:
            machine.check(FAMILY, case, TC, patched, kernel.name, block)
        except machine.Mismatch as e:
            assert case.id in str(e)
            record_property(
                "patched",
                f"{case.id} ({TC.flavor}): {by_address[address].text.split('//')[0].strip()} at 0x{address:x} -> "
                "s_nop 0",
            )
            record_property("gate_failed", " | ".join(str(e).splitlines()[:6]))
            return
    pytest.fail(f"{case.id}: no removed wait of {len(waits)} made the machine gate fail")
