"""Shared helpers families use: the CU table and split-K selection."""

import types

from arch import arch

# Public, read-only: arch name -> compute units (the fact lives in archs.json).
CU_TABLE = types.MappingProxyType({name: info.cus for name, info in arch.ARCHS.items()})


def num_cus(name):
    return arch.get(name).cus


def _positive(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"select_split_k: expected {name} to be a positive int, got {value!r}")


def select_split_k(m, n, k, arch_name, tile_m, tile_n, tile_k, max_split=16):
    """How many ways to split K for a GEMM-shaped problem (a power of two).

    Rule: with g = ceil(m/tile_m) * ceil(n/tile_n) workgroups, keep doubling
    the split while g * split is still below the CU count (so one wave of
    workgroups does not fill the machine), the split stays <= max_split, and
    every split keeps at least two k tiles (k // split >= 2 * tile_k). When
    g alone fills the CUs the answer is 1.
    """
    for name, value in (("m", m), ("n", n), ("k", k), ("tile_m", tile_m), ("tile_n", tile_n), ("tile_k", tile_k), ("max_split", max_split)):
        _positive(name, value)
    cus = num_cus(arch_name)
    groups = -(-m // tile_m) * -(-n // tile_n)
    split = 1
    while split * 2 <= max_split and groups * split < cus and k // (split * 2) >= 2 * tile_k:
        split *= 2
    return split
