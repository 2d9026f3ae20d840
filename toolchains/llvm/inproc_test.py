"""The compile path of one flavor (llvm_py_test runs it per flavor): LLVM
22-24 in this process give the bytes `opt -O2 | llc` gives; a verifier
failure is one clear error; LLVM 20's worker is reused across kernels, and a
kernel that ends it fails alone."""

import os

import pytest

from arch import arch as archs
from lower.llvm import lower
from tile.gemm_example import gemm_kernel
from toolchains.llvm import llvm
from toolchains.llvm.llvm import LlvmError, Toolchain

TC = Toolchain.current()
TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")
KNOWN = [a for a in ("gfx942", "gfx950", "gfx1201", "gfx1250") if archs.knows(TC.flavor, a)]
BROKEN = "define amdgpu_kernel void @f() {\n  %a = add i32 %b, 1\n  %b = add i32 1, 1\n  ret void\n}\n"


def probe(name):
    with open(os.path.join(TESTDATA, name)) as f:
        return f.read()


if TC.kind == "llc":

    @pytest.mark.parametrize("arch", KNOWN)
    def test_in_process_object_is_the_subprocess_object(arch):
        assert TC._library(arch) is not None, f"{TC.flavor} has no in-process LLVM for {arch}: nothing would be compared"
        isolated = Toolchain.from_file(llvm._runfile(os.environ["ROCKE_LLVM"]), isolated=True)
        for dtype in ("f16", "bf16"):
            ir = lower(gemm_kernel(arch, dtype)[0], TC.flavor)
            assert TC.compile(ir, arch).obj == isolated.compile(ir, arch).obj, (arch, dtype)


def test_verifier_failure_is_one_clear_error():
    with pytest.raises(LlvmError, match="does not dominate all uses") as err:
        TC.compile(BROKEN, "gfx942", triple="amdgcn-amd-amdhsa")
    assert TC.version in str(err.value)


def test_a_kernel_that_ends_llvm_fails_alone():
    # gfx9999 is no CPU: LLVM ends its process ("Cannot select"). LLVM 20's
    # worker dies; LLVM 22-24 take the subprocess path for a CPU outside the
    # flavor facts. Either way this kernel fails and the next one compiles.
    with pytest.raises(LlvmError):
        TC.compile(probe("t_notriple.ll"), "gfx9999", triple="amdgcn-amd-amdhsa")
    assert TC.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942").target.endswith("gfx942")


if TC.kind == "llvmlite":

    def test_the_worker_serves_many_kernels():
        ir = probe("q4_mfma_16x16x16f16.ll")
        TC.compile(ir, "gfx942")
        worker = llvm._WORKERS[TC.tools["python"]]
        for _ in range(3):
            TC.compile(ir, "gfx942")
        assert llvm._WORKERS[TC.tools["python"]] is worker and worker.proc.poll() is None

    def test_a_dead_worker_is_replaced():
        TC.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942")
        before = llvm._WORKERS[TC.tools["python"]].proc.pid
        with pytest.raises(LlvmError, match="ended its worker process"):
            TC.compile(probe("t_notriple.ll"), "gfx9999", triple="amdgcn-amd-amdhsa")
        TC.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942")
        assert llvm._WORKERS[TC.tools["python"]].proc.pid != before
