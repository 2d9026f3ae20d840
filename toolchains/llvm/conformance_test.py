"""Conformance of one LLVM toolchain with the measured facts
(platform/arch/flavor_facts.json, and the operand forms of mma_forms.json):
the exact version, the triple spellings (accepted, warning-free, rejected),
the datalayout, which of gfx90a/942/950/1100/1151/1201/1250 compile and
link, that an unknown llvm.amdgcn.* intrinsic is caught, the resource
figures; and of rocke's lowering with that LLVM: every intrinsic call it
emits, for every arch the flavor knows, is in the form this LLVM declares
(it survives llvm-as | llvm-dis unchanged: no AutoUpgrade rewrites it).

Runs under every flavor (llvm_py_test); the toolchain comes from ROCKE_LLVM.
"""

import os
import re
import struct

import pytest

from arch import arch as archs
from arch import flavor_facts
from arch.mma_forms import FORMS
from lower import flavors
from lower.coverage import corpus
from lower.llvm import lower
from toolchains.llvm.llvm import IndirectCallError, LlvmError, Toolchain, resources

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


def probe(name):
    with open(os.path.join(TESTDATA, name)) as f:
        return f.read()


@pytest.fixture(scope="module")
def tc():
    return Toolchain.current()


@pytest.fixture(scope="module")
def facts(tc):
    return flavor_facts.FLAVORS[tc.flavor]


def test_declared_and_reported_version_match_the_facts(tc, facts):
    assert tc.version == facts.version
    assert tc.reported_version() == facts.version


@pytest.mark.parametrize("triple", sorted(flavor_facts.FLAVORS[Toolchain.current().flavor].triples))
def test_triple_spelling(tc, facts, triple):
    expected = facts.triples[triple]
    if expected == "reject":
        with pytest.raises(LlvmError):
            tc.compile(probe("t_notriple.ll"), "gfx950", triple=triple)
        return
    out = tc.compile(probe("t_notriple.ll"), "gfx950", triple=triple)
    assert "s_endpgm" in tc.disassemble(tc.link(out.obj), "gfx950")
    warned = "deprecated" in out.warnings
    assert warned == (expected == "warn"), out.warnings


def test_datalayout(tc, facts):
    assert tc.default_datalayout("amdgcn-amd-amdhsa", "gfx950") == facts.datalayout


# Every arch rocke targets: each flavor's CPU list names some of them.
@pytest.mark.parametrize("cpu", sorted(archs.ARCHS))
def test_cpu_compiles_and_links_exactly_where_known(tc, facts, cpu):
    ir = probe("t_notriple.ll")
    if cpu not in facts.cpus:
        with pytest.raises(LlvmError):
            tc.compile(ir, cpu, triple="amdgcn-amd-amdhsa")
        return
    out = tc.compile(ir, cpu, triple="amdgcn-amd-amdhsa")
    # The CPU reached the target machine: the object is not tagged gfx700.
    assert re.fullmatch(rf"(amdgcn|amdgpu[\d.]+)-amd-amdhsa-+(unknown-)?{cpu}", out.target), out.target
    hsaco = tc.link(out.obj)
    assert hsaco[:4] == b"\x7fELF"
    assert cpu.encode() in hsaco


def test_unknown_intrinsic_is_caught(tc):
    # It compiles (to an indirect call); link --no-undefined is what stops it.
    out = tc.compile(probe("bogus_intrinsic.ll"), "gfx950")
    assert out.has_indirect_call
    with pytest.raises(LlvmError, match="undefined symbol: llvm.amdgcn.bogus.thing"):
        tc.link(out.obj)


def test_build_refuses_the_indirect_call_before_linking(tc):
    with pytest.raises(
        IndirectCallError, match=f"^{tc.flavor} compiled an intrinsic it does not know into an indirect call in bogus$"
    ):
        tc.build(probe("bogus_intrinsic.ll"), "gfx950", "bogus")


def test_build_links_and_reads_the_figures(tc):
    built = tc.build(probe("q4_wmma_gfx12_w32.ll"), "gfx1201", "wmma")
    assert built.code_object[:4] == b"\x7fELF"
    assert built.figures == dict(resources(built.compiled), waves=-(-built.figures["workgroup_size"] // 32))


def test_known_intrinsic_has_no_indirect_call(tc):
    out = tc.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942")
    assert not out.has_indirect_call
    assert "v_mfma_f32_16x16x16" in tc.disassemble(tc.link(out.obj), "gfx942")


def test_resource_figures(tc):
    figures = resources(tc.compile(probe("q4_wmma_gfx12_w32.ll"), "gfx1201"))
    assert figures["wave_size"] == 32
    assert figures["vgpr"] > 0 and figures["sgpr"] > 0
    assert figures["lds"] == 0 and figures["scratch"] == 0
    assert figures["vgpr_spill"] == 0
    # Computed from the arch table for every flavor (occupancy_test.py
    # checks the formula against llc's printed figure).
    assert figures["occupancy"] == 16


def test_invalid_ir_is_rejected_by_verify(tc):
    with pytest.raises(LlvmError):
        tc.verify("define void @f() {\n  ret i32 0\n}\n")
    tc.verify(probe("t_notriple.ll"))


_CALL = re.compile(r"^\s*(?:%\S+ = )?call (.+?) @(llvm\.[\w.]+)\((.*)\)$")
_HEX_DOUBLE = re.compile(r"0x[0-9A-F]{16}")


def _value(type_, value):
    """A call operand's value, with float spellings made comparable (llvm-dis
    prints 1.0 as 1.000000e+00 where rocke writes 0x3FF0000000000000)."""
    if _HEX_DOUBLE.fullmatch(value):
        return struct.unpack(">d", bytes.fromhex(value[2:]))[0]
    if type_ in ("float", "double") and re.fullmatch(r"-?\d+\.\d+e[+-]\d+", value):
        return float(value)
    return value


def intrinsic_calls(ir):
    """(return type, name, [(type, value)...]) of every intrinsic call, in order."""
    out = []
    for line in ir.splitlines():
        match = _CALL.match(line)
        if match:
            ret, name, args = match.groups()
            operands = [a.rsplit(" ", 1) for a in args.split(", ")] if args else []
            out.append((ret, name, [(t, _value(t, v)) for t, v in operands]))
    return out


# Collected only for the archs this test's flavor knows (a skip is not a pass).
KNOWN_ARCHS = [a for a in sorted(archs.ARCHS) if a in flavors.get(Toolchain.current().flavor).cpus]


@pytest.mark.parametrize("arch", KNOWN_ARCHS)
def test_emitted_intrinsic_calls_need_no_autoupgrade(tc, arch):
    # Every intrinsic call rocke emits is in the form this LLVM declares: a
    # parse and print (llvm-as | llvm-dis) leaves each one as it was.
    for kernel in corpus(arch):
        ir = lower(kernel, tc.flavor)
        emitted = intrinsic_calls(ir)
        assert emitted, kernel.name
        assert intrinsic_calls(tc.reprint(ir)) == emitted, f"{kernel.name} on {arch}: LLVM rewrote a call"


GFX1250_WMMA_PROBES = {8: "q4_wmma_gfx1250_16x16x32_f16.ll", 6: "q4_wmma_gfx1250_16x16x32_f16_6op.ll"}
# The one statement of how many operands each LLVM declares this intrinsic
# with: the form mma_forms.json gives it on that flavor ("wmma8" or "wmma6").
GFX1250_WMMA = FORMS[("mma_16x16x32_f16_f32", "gfx1250")]


# Only collected where this flavor knows gfx1250: a test that cannot apply is
# not a pass.
if set(GFX1250_WMMA.archs) & set(flavor_facts.FLAVORS[Toolchain.current().flavor].cpus):

    @pytest.mark.parametrize("operands", sorted(GFX1250_WMMA_PROBES))
    def test_gfx1250_wmma_operand_count(tc, operands):
        form = GFX1250_WMMA.llvm.for_flavor(tc.flavor)
        declared = {"wmma8": 8, "wmma6": 6}[form.form]
        ir = probe(GFX1250_WMMA_PROBES[operands])
        assert f"@{form.intrinsic}(" in ir, "the probe calls another intrinsic than the form"
        if operands == declared:
            assert intrinsic_calls(tc.reprint(ir)) == intrinsic_calls(ir)
            return
        try:
            (call,) = intrinsic_calls(tc.reprint(ir))
        except LlvmError as e:  # rejected outright (LLVM 22 on the 6-operand call)
            assert "Intrinsic has incorrect argument type" in str(e)
            return
        assert len(call[2]) == declared, call  # upgraded to the declared form


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
