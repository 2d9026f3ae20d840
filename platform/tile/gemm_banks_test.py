"""The GEMM tiles' LDS accesses under platform/isa/banks.py's model: every
copy write and fragment read of the fast path is modelled and conflict-free."""

import pytest

from arch import arch
from arch.lds_ops import LDS_OPS
from isa import banks
from tile.gemm_example import TILES_128, gemm_kernel
from tile.lds import RowXor


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


def _gfx950(dtype="f16"):
    kernel, _ = gemm_kernel("gfx950", dtype, TILES_128["gfx950"](dtype))
    lds = arch.lds_banks("gfx950")
    return banks.model(kernel, lds.count, lds.bytes)


def test_gfx950s_direct_loads_and_double_buffered_reads_are_modelled():
    # Its fast loop (gemm._direct_loop) reads the buffer (iv / 32 % 2) *
    # tile bytes in, a uniform shift; its direct loads (16 bytes a lane, 2
    # for A and 2 for B, in the prologue and in the loop) are its only writes
    # but the edge path's.
    accesses = [a for a in _gfx950()["accesses"] if a["modelled"]]
    shifted = [a for a in accesses if a["uniform_shift"]]
    assert {a["uniform_shift"] for a in shifted} == {8192} and len(shifted) == 12 + 4, shifted[:3]
    writes = [a for a in accesses if a["access"] == "write"]
    assert len(writes) == 8 and {a["bytes"] for a in writes} == {16}, writes


def test_without_rowxors_swizzle_the_transposed_reads_conflict(monkeypatch):
    # B's k-rows are one 256-byte line each: unswizzled, the 4 rows of a
    # transposed read fall on the same 16 banks (the swizzle is not decoration).
    monkeypatch.setattr(RowXor, "_swizzle", lambda self, b, row: b.mul(row, 0))
    conflicted = [a for a in _gfx950()["accesses"] if a["modelled"] and a["ways"] > 1]
    assert conflicted and {a["bytes"] for a in conflicted} == {8} and max(a["ways"] for a in conflicted) == 4, (
        conflicted[:3]
    )
