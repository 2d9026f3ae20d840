"""The GEMM tiles' LDS accesses under platform/isa/banks.py's model: every
copy write and fragment read of the fast path is modelled and conflict-free."""

import pytest

from arch import arch
from arch.lds_ops import LDS_OPS
from isa import banks
from tile.gemm_example import TILES_128, gemm_kernel


@pytest.mark.parametrize("arch_name", sorted(TILES_128))
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_no_modelled_bank_conflicts(arch_name, dtype):
    kernel, _ = gemm_kernel(arch_name, dtype, TILES_128[arch_name](dtype))
    lds = arch.lds_banks(arch_name)
    model = banks.model(kernel, lds.count, lds.bytes)
    conflicted = [a for a in model["accesses"] if a["modelled"] and a["ways"] > 1]
    assert not conflicted, conflicted[:3]
    # Fragment reads of 16 bytes; on gfx950 B's are transposed reads of 8.
    transposed = arch_name in LDS_OPS["mem.load_transpose"].archs
    reads = [a for a in model["accesses"] if a["access"] == "read"]
    assert reads and all(a["modelled"] for a in reads), reads[:3]
    assert {a["bytes"] for a in reads} == ({16, 8} if transposed else {16}), reads[:3]
    # Only the edge path's element-wise stores (inside its rolled loop) escape the model.
    unknown = [a for a in model["accesses"] if not a["modelled"]]
    assert len(unknown) == 2 and all("induction variable" in a["reason"] and a["bytes"] == 2 for a in unknown), unknown
    writes = [a for a in model["accesses"] if a["access"] == "write" and a["modelled"]]
    # A's 16-byte vectors, B's transposed dwords (on gfx950 B's vectors as they are).
    assert {a["bytes"] for a in writes} == ({16} if transposed else {16, 4})
