"""The availability probe's child process (availability.available): an
intrinsic the arch has is available; one that makes LLVM end its process
("Cannot select") is not, and this process lives on; a fault of the
probing code is raised, never recorded as a missing intrinsic."""

import pytest

from lower import availability
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()
CALL = "call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half> %a, <4 x half> %a, <4 x float> zeroinitializer, i32 0, i32 0, i32 0)"
DECLARE = "declare <4 x float> @llvm.amdgcn.mfma.f32.16x16x16f16(<4 x half>, <4 x half>, <4 x float>, i32, i32, i32)"


def module(arch):
    match = availability._CALL.match(f"  %r = {CALL}")
    assert match, "the probe's call does not match availability._CALL"
    return availability.probe_module(TC.flavor, DECLARE, match, arch)


def test_an_intrinsic_the_arch_has_is_available():
    assert availability.available(TC, "gfx942", module("gfx942"))


def test_an_intrinsic_llvm_cannot_select_is_not_and_this_process_lives_on():
    # gfx1201 has no MFMA: LLVM ends the probe's process ("Cannot select").
    assert not availability.available(TC, "gfx1201", module("gfx1201"))
    assert availability.available(TC, "gfx942", module("gfx942"))


def test_a_fault_of_the_prober_is_raised(monkeypatch):
    def broken(*_):
        raise KeyError("not LLVM's doing")

    monkeypatch.setattr(availability, "_compiles", broken)
    with pytest.raises(RuntimeError, match="gfx942 failed in this program, not in LLVM"):
        availability.available(TC, "gfx942", module("gfx942"))
