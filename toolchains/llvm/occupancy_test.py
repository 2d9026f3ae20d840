"""Occupancy computed from the arch table (platform/arch/occupancy.py)
against the figure llc prints ("; Occupancy: N") for the same kernel, on
LLVM 22, 23 and 24 (llvmlite prints none): the platform's kernels (the
lowering's coverage corpus and the proof GEMM) on every arch, and a sweep of
small kernels over LDS size, workgroup size, wave size and VGPR count."""

import re
import subprocess

import pytest

from arch import arch as archs
from arch import flavor_facts
from lower.coverage import corpus
from lower.llvm import lower
from tile.gemm_example import gemm_kernel
from toolchains.llvm.llvm import Compiled, Toolchain, resources

TC = Toolchain.current()
ARCHS = sorted(a for a in archs.ARCHS if archs.knows(TC.flavor, a))

# A kernel with `lds` bytes of LDS, up to `size` lanes, and `vec` floats per
# lane live at once (which sets its VGPRs).
SWEEP = """target triple = "amdgcn-amd-amdhsa"
@lds = internal addrspace(3) global [{lds} x i8] poison, align 16
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) #0 {{
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %p = getelementptr i8, ptr addrspace(3) @lds, i32 %t
  store i8 1, ptr addrspace(3) %p
  call void @llvm.amdgcn.s.barrier()
  %v = load i8, ptr addrspace(3) %p
  %q = getelementptr <{vec} x float>, ptr addrspace(1) %in, i32 %t
  %a = load volatile <{vec} x float>, ptr addrspace(1) %q
  %b = load volatile <{vec} x float>, ptr addrspace(1) %q
  %c = fmul <{vec} x float> %a, %b
  %o = getelementptr <{vec} x float>, ptr addrspace(1) %out, i32 %t
  store volatile <{vec} x float> %c, ptr addrspace(1) %o
  store volatile <{vec} x float> %a, ptr addrspace(1) %o
  %o2 = getelementptr i8, ptr addrspace(1) %out, i32 %t
  store i8 %v, ptr addrspace(1) %o2
  ret void
}}
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
attributes #0 = {{ "amdgpu-flat-work-group-size"="1,{size}" "target-features"="{features}" }}
"""


def sweep(arch):
    info = archs.get(arch)
    for wave in info.wave_sizes:
        features = f"+wavefrontsize{wave}"
        for lds in (3300, 9000, 20000, 40000, info.lds_bytes):
            for size in (64, 256, 1024):
                if lds <= info.lds_bytes:
                    yield f"lds{lds}_size{size}_w{wave}", SWEEP.format(lds=lds, size=size, vec=4, features=features)
        for vec in (24, 48, 100, 160):
            yield f"vec{vec}_w{wave}", SWEEP.format(lds=16, size=256, vec=vec, features=features)


def kernels(arch):
    for kernel in corpus(arch):
        yield kernel.name, lower(kernel, TC.flavor)
    for dtype in ("f16", "bf16"):
        kernel, _ = gemm_kernel(arch, dtype)
        yield kernel.name, lower(kernel, TC.flavor)
    yield from sweep(arch)


def compiled_and_printed(ir, arch):
    """`ir` through `opt -O2 | llc -O2`, as compile() runs it, once: the object
    (the assembly through llvm-mc, so its metadata is that of the code llc
    printed) and llc's "; Occupancy: N" for it."""
    target = [f"-mcpu={arch}"]
    bitcode = _run("opt", "-O2", *target, data=ir.encode())
    asm = _run("llc", "-O2", *target, data=bitcode)
    obj = _run("llvm-mc", "-triple=amdgcn-amd-amdhsa", *target, "-filetype=obj", data=asm)
    printed = int(re.search(rb"; Occupancy: (\d+)", asm).group(1))
    return Compiled(TC.flavor, arch, obj, ""), printed


def _run(tool, *args, data):
    return subprocess.run(
        [f"{TC.tools['bin']}/{tool}", *args, "-o", "-", "-"], input=data, capture_output=True, check=True
    ).stdout


def test_this_llvm_prints_occupancy():
    assert flavor_facts.FLAVORS[TC.flavor].reports_occupancy


@pytest.mark.parametrize("arch", ARCHS)
def test_computed_occupancy_is_llcs(arch):
    wrong, seen = [], set()
    for name, ir in kernels(arch):
        compiled, printed = compiled_and_printed(ir, arch)
        figures = resources(compiled)
        seen.add(printed)
        if figures["occupancy"] != printed:
            wrong.append(f"{name}: llc {printed}, computed {figures['occupancy']} from {figures}")
    assert not wrong, f"{len(wrong)} kernels on {arch}:\n" + "\n".join(wrong)
    assert len(seen) >= 3, (
        f"the kernels of {arch} reach only occupancies {sorted(seen)}: the test would not see a wrong bound"
    )
