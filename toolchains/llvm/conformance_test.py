"""Conformance of one LLVM toolchain with the measured facts (flavor_facts.py).

Runs under every flavor (llvm_py_test); the toolchain comes from ROCKE_LLVM.
"""

import os
import re

import pytest

from toolchains.llvm import flavor_facts as facts
from toolchains.llvm.llvm import LlvmError, Toolchain, resources

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


def probe(name):
    with open(os.path.join(TESTDATA, name)) as f:
        return f.read()


@pytest.fixture(scope="module")
def tc():
    return Toolchain.current()


def test_declared_and_reported_version_match_the_facts(tc):
    assert tc.version == facts.VERSION[tc.flavor]
    assert tc.reported_version() == facts.VERSION[tc.flavor]


@pytest.mark.parametrize("triple", sorted(facts.TRIPLES))
def test_triple_spelling(tc, triple):
    expected = facts.TRIPLES[triple][tc.flavor]
    if expected == "reject":
        with pytest.raises(LlvmError):
            tc.compile(probe("t_notriple.ll"), "gfx950", triple=triple)
        return
    out = tc.compile(probe("t_notriple.ll"), "gfx950", triple=triple)
    assert "s_endpgm" in out.asm
    warned = "deprecated" in out.warnings
    assert warned == (expected == "warn"), out.warnings


def test_datalayout(tc):
    assert tc.default_datalayout("amdgcn-amd-amdhsa", "gfx950") == facts.DATALAYOUT[tc.flavor]


@pytest.mark.parametrize("cpu", facts.TARGET_CPUS)
def test_cpu_compiles_and_links_exactly_where_known(tc, cpu):
    ir = probe("t_notriple.ll")
    if cpu not in facts.CPUS[tc.flavor]:
        with pytest.raises(LlvmError):
            tc.compile(ir, cpu, triple="amdgcn-amd-amdhsa")
        return
    out = tc.compile(ir, cpu, triple="amdgcn-amd-amdhsa")
    # The CPU reached the target machine: the object is not tagged gfx700.
    assert re.search(rf"\.amdgcn_target \"amdgcn-amd-amdhsa-+(unknown-)?{cpu}", out.asm), out.asm[:400]
    hsaco = tc.link(out.obj)
    assert hsaco[:4] == b"\x7fELF"
    assert cpu.encode() in hsaco


def test_unknown_intrinsic_is_caught(tc):
    # It compiles (to an indirect call); link --no-undefined is what stops it.
    out = tc.compile(probe("bogus_intrinsic.ll"), "gfx950")
    assert out.has_indirect_call
    with pytest.raises(LlvmError, match="undefined symbol: llvm.amdgcn.bogus.thing"):
        tc.link(out.obj)


def test_known_intrinsic_has_no_indirect_call(tc):
    out = tc.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942")
    assert not out.has_indirect_call
    assert "v_mfma_f32_16x16x16" in out.asm
    tc.link(out.obj)


def test_resource_figures(tc):
    figures = resources(tc.compile(probe("q4_wmma_gfx12_w32.ll"), "gfx1201").asm)
    assert figures["wave_size"] == 32
    assert figures["vgpr"] > 0 and figures["sgpr"] > 0
    assert figures["lds"] == 0 and figures["scratch"] == 0
    assert figures["vgpr_spill"] == 0
    assert (figures["occupancy"] is not None) == facts.REPORTS_OCCUPANCY[tc.flavor]


def test_invalid_ir_is_rejected_by_verify(tc):
    with pytest.raises(LlvmError):
        tc.verify("define void @f() {\n  ret i32 0\n}\n")
    tc.verify(probe("t_notriple.ll"))


def test_verify_many_judges_each_module_on_its_own(tc):
    good = probe("q4_mfma_16x16x16f16.ll")
    parse_error = good.replace("load <4 x half>, ptr", "load <4 x half>, i32", 1)
    # Parses, but the verifier rejects it: a use before its definition.
    verify_error = "define void @f() {\n  %a = add i32 %b, 1\n  %b = add i32 1, 1\n  ret void\n}\n"
    # Every module defines @k: verify_many must not link them into one.
    modules = [good, parse_error, good, verify_error, good, verify_error]
    verdicts = tc.verify_many(modules)
    assert [v is None for v in verdicts] == [True, False, True, False, True, False]
    assert "does not dominate all uses" in verdicts[3] and "does not dominate all uses" in verdicts[5]
    for module, verdict in zip(modules, verdicts):
        if verdict is not None:
            with pytest.raises(LlvmError):
                tc.verify(module)
    assert tc.verify_many([good] * 50) == [None] * 50
