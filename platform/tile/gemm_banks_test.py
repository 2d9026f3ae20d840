"""The GEMM tiles' LDS accesses under platform/isa/banks.py's model: every
copy write and fragment read of the fast path is modelled and conflict-free."""

import pytest

from arch import arch
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
    reads = [a for a in model["accesses"] if a["access"] == "read"]
    assert reads and all(a["modelled"] and a["bytes"] == 16 for a in reads), reads[:3]
    # Only the edge path's element-wise stores (inside its rolled loop) escape the model.
    unknown = [a for a in model["accesses"] if not a["modelled"]]
    assert len(unknown) == 2 and all("induction variable" in a["reason"] and a["bytes"] == 2 for a in unknown), unknown
    writes = [a for a in model["accesses"] if a["access"] == "write" and a["modelled"]]
    assert {a["bytes"] for a in writes} == {16, 4}  # A's 16-byte vectors, B's transposed dwords
