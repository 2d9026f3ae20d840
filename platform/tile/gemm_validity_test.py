"""The proof GEMM through each flavor's real LLVM: verify, compile, link."""

import re

import pytest

from lower import flavors
from lower.flavors import ArchDomainError
from lower.llvm import lower
from tile.gemm_example import gemm_kernel
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()
MATRIX_INSTRUCTION = {
    "gfx942": "v_mfma_f32_16x16x16",
    "gfx950": "v_mfma_f32_32x32x16",
    "gfx1201": "v_wmma_f32_16x16x16",
    "gfx1250": "v_wmma_f32_16x16x32",
}


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("arch", sorted(MATRIX_INSTRUCTION))
def test_gemm_compiles_and_links_where_the_flavor_knows_the_arch(arch, dtype):
    kernel, _ = gemm_kernel(arch, dtype)
    if arch not in flavors.get(TC.flavor).cpus:
        with pytest.raises(ArchDomainError, match=f"{arch} is not known to {TC.flavor}"):
            lower(kernel, TC.flavor)
        return
    out = TC.compile(lower(kernel, TC.flavor), arch)
    assert not out.has_indirect_call
    hsaco = TC.link(out.obj)
    assert hsaco[:4] == b"\x7fELF"
    text = TC.disassemble(hsaco, arch)
    assert re.search(MATRIX_INSTRUCTION[arch], text), text[:2000]
