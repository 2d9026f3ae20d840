"""Every random kernel that verifies lowers to a module the real LLVM of the
flavor under test accepts (llvm_py_test runs this once per flavor): 3,000
hypothesis kernels through verify, lower and that LLVM's verifier."""

from hypothesis import HealthCheck, given, settings

from arch import arch as archs
from arch.lds_ops import LDS_OPS
from ir import kernel_gen
from ir.fuzz_llvm import Tally
from ir.ops import OPS
from ir.strategies import cases
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()
EXAMPLES = 3000


def test_every_kernel_that_verifies_is_accepted_by_llvm():
    tally = Tally(TC.flavor)

    @settings(
        max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(cases())
    def collect(case):
        tally.add(case)

    collect()
    tally.judge(TC)
    print("\n".join(tally.report()))
    assert not tally.bugs, "\n".join(tally.report())
    # The walls must let most kernels through, or LLVM sees too little.
    assert tally.examples >= EXAMPLES
    assert tally.accepted >= tally.examples // 2, tally.report()[0]
    assert tally.accepted_ops | {"scf.yield"} == set(OPS)
    assert {str(t) for t in kernel_gen.SCALARS} <= tally.accepted_types
    # Out of a flavor's domain: a kernel for gfx1250 on llvm20, and the
    # arch-limited memory ops (made only as faults off their archs).
    assert (tally.domain_by["kernel"] > 0) == (not archs.knows(TC.flavor, "gfx1250")), tally.domain_by
    assert set(tally.domain_by) <= {"kernel", *LDS_OPS}, tally.domain_by
