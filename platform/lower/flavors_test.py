"""Every row of the flavor table and every op's lowering, against the real LLVM
of the flavor under test (llvm_py_test runs this once per flavor)."""

import pytest

from arch import arch as archs
from lower.coverage import every_op
from lower import flavors
from lower.flavors import ArchDomainError
from lower.llvm import lower
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()
FLAVOR = flavors.get(TC.flavor)
KNOWN = [a for a in sorted(archs.ARCHS) if a in FLAVOR.cpus]
UNKNOWN = [a for a in sorted(archs.ARCHS) if a not in FLAVOR.cpus]


@pytest.mark.parametrize("arch", KNOWN)
def test_every_op_verifies_compiles_and_links(arch):
    out = TC.compile(lower(every_op(arch), TC.flavor), arch)
    assert not out.has_indirect_call
    assert "deprecated" not in out.warnings, out.warnings
    TC.link(out.obj)


@pytest.mark.parametrize("arch", KNOWN)
def test_triple_and_datalayout_rows(arch):
    triple = FLAVOR.triple(arch)
    assert TC.default_datalayout(triple, arch) == FLAVOR.datalayout


def test_code_object_version_flag():
    out = TC.compile(lower(every_op("gfx942"), TC.flavor), "gfx942")
    assert out.code_object_version == FLAVOR.code_object_version // 100


# Only a flavor that lacks an arch of the table (llvm20: gfx1250) has this
# test; llvm22-24 know every arch, and an empty parameter set would be a
# skip, which fails the target.
if UNKNOWN:

    @pytest.mark.parametrize("arch", UNKNOWN)
    def test_unknown_arch_fails_before_llvm(arch):
        with pytest.raises(ArchDomainError, match=f"{arch} is not known to {TC.flavor}"):
            lower(every_op(arch), TC.flavor)


@pytest.mark.parametrize("arch", [a for a in KNOWN if archs.get(a).generation in ("gfx12", "gfx1250")])
def test_split_barrier_is_emitted_for_gfx12_and_later(arch):
    out = TC.compile(lower(every_op(arch), TC.flavor), arch)
    text = TC.disassemble(TC.link(out.obj), arch)
    assert "s_barrier_signal -1" in text and "s_barrier_wait" in text
