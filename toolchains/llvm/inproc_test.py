"""The compile path of one flavor (llvm_py_test runs it per flavor): LLVM
22-24 in this process give the bytes `opt -O2 | llc` gives; one compile runs
the -O2 pipeline once and codegen once, and reports each stage's CPU time; a
verifier failure is one clear error; LLVM 20's worker is reused across
kernels, a kernel that ends it fails alone, and a worker grown past its
memory limit is replaced; lld in this process writes the code object ld.lld
writes on every arch, a link it fails (an undefined symbol) is ld.lld's
error and the next link is in process again, a fatal link error leaves the
process alive, and a missing lld_link_NN.so names its target."""

import os
import re
import subprocess
import sys
import tempfile

import pytest

from arch import arch as archs
from lower.llvm import lower
from tile.gemm_example import gemm_kernel
from toolchains.llvm import lld_link, llvm
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
        assert TC._library(arch) is not None, (
            f"{TC.flavor} has no in-process LLVM for {arch}: nothing would be compared"
        )
        for dtype in ("f16", "bf16"):
            ir = lower(gemm_kernel(arch, dtype)[0], TC.flavor)
            assert TC.compile(ir, arch).obj == TC.compile_in_processes(ir, arch).obj, (arch, dtype)


def write_object(tmp, obj):
    path = os.path.join(tmp, "k.o")
    with open(path, "wb") as f:
        f.write(obj)
    return path


def link_both_ways(obj):
    """(linked in this process?, its code object or None, ld.lld's code object) of `obj`."""
    with tempfile.TemporaryDirectory() as tmp:
        src, mine, theirs = write_object(tmp, obj), os.path.join(tmp, "a.hsaco"), os.path.join(tmp, "b.hsaco")
        linked = lld_link.load(TC.tools["linker"]).link([*llvm._LINK_ARGS, src, "-o", mine])
        subprocess.run([TC.lld, *llvm._LINK_ARGS, src, "-o", theirs], check=True, capture_output=True)
        return linked, read_bytes(mine) if linked else None, read_bytes(theirs)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.mark.parametrize("arch", KNOWN)
def test_in_process_link_is_the_ld_lld_link(arch):
    linked, mine, theirs = link_both_ways(TC.compile(lower(gemm_kernel(arch, "f16")[0], TC.flavor), arch).obj)
    assert linked, f"lld {TC.tools['linker']} did not link in process"
    assert mine == theirs


def test_a_failed_in_process_link_is_ld_llds_error_and_lld_links_on():
    bogus = TC.compile(probe("bogus_intrinsic.ll"), "gfx950").obj
    linker = lld_link.load(TC.tools["linker"])
    with tempfile.TemporaryDirectory() as tmp:
        assert not linker.link([*llvm._LINK_ARGS, write_object(tmp, bogus), "-o", os.path.join(tmp, "k.hsaco")])
    assert linker.usable
    with pytest.raises(LlvmError, match="undefined symbol: llvm.amdgcn.bogus.thing"):
        TC.link(bogus)
    linked, mine, theirs = link_both_ways(TC.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942").obj)
    assert linked and mine == theirs


def test_a_missing_linker_library_names_what_there_is():
    with pytest.raises(
        LlvmError,
        match=r"no in-process lld for LLVM '99' .*: found lld_link_22\.so, lld_link_23\.so, lld_link_24\.so; .*//toolchains/llvm:lld_link_NN\.so",
    ):
        lld_link.load("99")


def test_a_fatal_link_error_leaves_the_process_alive_and_ld_lld_links_on():
    # lld ends a link it cannot go on with (a truncated object) with a fatal
    # error, which without crash recovery would _exit the whole process;
    # that lld may not run again. In a process of its own, so this one's
    # in-process lld stays usable.
    good = TC.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942").obj
    script = (
        "import sys\n"
        "from toolchains.llvm import lld_link\n"
        "from toolchains.llvm.llvm import LlvmError, Toolchain, _runfile\n"
        "tc = Toolchain.from_file(_runfile(sys.argv[1]))\n"
        "good = sys.stdin.buffer.read()\n"
        "try:\n"
        "    tc.link(good[:100])\n"
        "except LlvmError as e:\n"
        "    print('error:', e)\n"
        "print('usable:', lld_link.load(tc.tools['linker']).usable)\n"
        "print('linked:', tc.link(good)[:4] == b'\\x7fELF')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, os.environ["ROCKE_LLVM"]],
        input=good,
        capture_output=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
    )
    out = proc.stdout.decode()
    assert proc.returncode == 0, (out, proc.stderr.decode())
    assert re.search(
        r"^error: ld.lld --no-undefined failed \(exit 1\): .*section header table goes past the end of the file",
        out,
        re.M,
    ), out
    assert "usable: False" in out and "linked: True" in out, out


# One compile of the in-process path (capi.py) or of the worker's op_compile,
# in a process of its own with LLVM's opt-bisect on: LLVM then names every
# pass it runs on stderr, "BISECT: running pass (N) NAME on UNIT".
_BISECT = "-opt-bisect-limit=2000000000"
_ONE_COMPILE = {
    "llc": (
        sys.executable,
        "import ctypes, sys\n"
        "from toolchains.llvm import capi\n"
        "path, cpu = sys.argv[1:]\n"
        "library = capi.load(path)\n"
        f"ctypes.CDLL(path).LLVMParseCommandLineOptions(2, (ctypes.c_char_p * 2)(b'rocke', b'{_BISECT}'), None)\n"
        "library.compile(sys.stdin.read(), cpu)\n",
    ),
    "llvmlite": (
        TC.tools.get("python"),
        "import runpy, sys\n"
        "import llvmlite.binding as llvm\n"
        "driver, cpu = sys.argv[1:]\n"
        "op_compile = runpy.run_path(driver)['op_compile']\n"
        "llvm.initialize_all_targets()\n"
        "llvm.initialize_all_asmprinters()\n"
        f"llvm.set_option('', '{_BISECT}')\n"
        "op_compile({'text': sys.stdin.read(), 'cpu': cpu, 'triple': ''})\n",
    ),
}
# Instruction selection, once per function per codegen, as each LLVM names it.
_ISEL = re.compile(r"^(AMDGPU DAG->DAG Pattern Instruction Selection|amdgpu-isel)$")


def test_one_compile_runs_the_o2_pipeline_once_and_codegen_once():
    python, script = _ONE_COMPILE[TC.kind]
    where = TC.tools["library"] if TC.kind == "llc" else llvm._LLVMLITE_DRIVER
    proc = subprocess.run(
        [python, "-c", script, where, "gfx942"],
        input=probe("q4_mfma_16x16x16f16.ll"),
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    runs = re.findall(r"^BISECT: running pass \(\d+\) (.+) on (.+)$", proc.stderr, re.M)
    assert len(runs) > 100, proc.stderr[-2000:]  # the whole -O2 pipeline and codegen ran
    # The pipeline's first pass runs on the module once per pipeline run.
    assert runs.count(runs[0]) == 1 and runs[0][1] == "[module]", runs[0]
    isel = [unit for name, unit in runs if _ISEL.match(name)]
    assert isel == ["function (k)"], isel


def test_a_compile_reports_each_stage():
    stages = TC.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942").stages
    assert list(stages) == ["parse", "o2", "codegen"], stages
    assert all(0 < seconds < 60 for seconds in stages.values()), stages


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

    def test_a_worker_past_its_memory_limit_is_replaced(monkeypatch):
        TC.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942")
        worker = llvm._WORKERS[TC.tools["python"]]
        monkeypatch.setattr(llvm, "_WORKER_RSS_LIMIT", worker.maxrss - 1)
        TC.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942")
        assert llvm._WORKERS[TC.tools["python"]] is not worker and worker.proc.poll() == 0

    def test_a_dead_worker_is_replaced():
        TC.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942")
        before = llvm._WORKERS[TC.tools["python"]].proc.pid
        with pytest.raises(LlvmError, match="ended its worker process"):
            TC.compile(probe("t_notriple.ll"), "gfx9999", triple="amdgcn-amd-amdhsa")
        TC.compile(probe("q4_mfma_16x16x16f16.ll"), "gfx942")
        assert llvm._WORKERS[TC.tools["python"]].proc.pid != before
