"""The split-K planner of conv_igemm_fwd: how many ways to split a layer's reduction.

select_split_k_fwd(spec) -> a power of two, 1 when the layer needs no split.

A forward layer's GEMM (conv.igemm_tiles.IgemmSpec.gemm) is reduced over
C/groups x filter taps. Late ResNet layers at small batch have few output
pixels and so few workgroups: res5's 3x3 at batch 1 is 49 pixels x 512
filters, 8 workgroups of 128 x 64 on a 304-CU MI300X, and each runs a
4,608-long reduction alone. Splitting that reduction S ways runs S times
as many workgroups, each over 1/S of it (IgemmSpec.split_k), their f32
partial sums added after by a second kernel (conv.split_k_reduce); the
planner (app/planner/choose.py) builds both when this picks S > 1.

The rule is the generic GEMM selector's (select_split_k, below, the one
place it is stated), applied to the whole launch: its workgroups are the
pixel blocks x filter blocks of one group times the groups, so a grouped
layer already fills more of the machine. The forward caps the split at
MAX_SPLIT = 16: beyond it the f32 workspace and the reduce pass cost more
than the extra parallelism gains.

conv_igemm_wgrad's planner, select_split_k_wgrad -> WgradSplitPolicy, is
below: the same selector, and a choice of variant (its docstring). The
planner also shows the gemm family's choice by select_split_k.
"""

import dataclasses

from arch import arch as archs
from conv.spec import MAX_TENSOR_BYTES

MAX_SPLIT = 16


def _positive(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"select_split_k: expected {name} to be a positive int, got {value!r}")


def select_split_k(m, n, k, arch_name, tile_m, tile_n, tile_k, max_split=MAX_SPLIT):
    """How many ways to split K for a GEMM-shaped problem (a power of two).

    Rule: with g = ceil(m/tile_m) * ceil(n/tile_n) workgroups, start at 1 and
    keep doubling the split while
      - g * split is still below the arch's CU count (archs.json), so a split
        launch never holds more workgroups than fill the CUs twice;
      - the split stays <= max_split;
      - every split keeps at least two k tiles (k // split >= 2 * tile_k), so
        the main loop keeps its prefetch pipeline busy.
    When g alone fills the CUs the answer is 1.
    """
    for name, value in (
        ("m", m),
        ("n", n),
        ("k", k),
        ("tile_m", tile_m),
        ("tile_n", tile_n),
        ("tile_k", tile_k),
        ("max_split", max_split),
    ):
        _positive(name, value)
    cus = archs.get(arch_name).cus
    groups = -(-m // tile_m) * -(-n // tile_n)
    split = 1
    while split * 2 <= max_split and groups * split < cus and k // (split * 2) >= 2 * tile_k:
        split *= 2
    return split


def select_split_k_fwd(spec, arch, max_split=MAX_SPLIT):
    """Ways to split the reduction of IgemmSpec `spec` on `arch` (a power of two)."""
    m, n, k = spec.gemm
    blocks_x, blocks_y, groups = spec.grid()
    # The generic selector counts ceil(m / tile_m) * ceil(n / tile_n) workgroups:
    # give it the launch's rows (pixel blocks of every group) in whole tiles.
    rows = blocks_y * groups * spec.tile.block_m
    return select_split_k(rows, n, k, arch, spec.tile.block_m, spec.tile.block_n, spec.tile.block_k, max_split)


# -- conv_igemm_wgrad -------------------------------------------------------------------

WGRAD_MAX_SPLIT = 64
WORKSPACE_BYTES = 64 * 2**20
_F32_BYTES = 4


@dataclasses.dataclass(frozen=True)
class WgradSplitPolicy:
    """How conv_igemm_wgrad runs a layer: mode (conv.wgrad_spec.MODES) and split S."""

    mode: str
    split: int

    def apply(self, spec):
        """The WgradSpec `spec` with this split."""
        return dataclasses.replace(spec, split=self.split, mode=self.mode)


def select_split_k_wgrad(spec, arch, max_split=WGRAD_MAX_SPLIT, workspace_bytes=WORKSPACE_BYTES):
    """The WgradSplitPolicy of WgradSpec `spec` (its split ignored) on `arch`.

    A weight gradient's GEMM (conv.wgrad_spec.WgradSpec.gemm) is the forward's
    turned around: its rows and columns are the weights (K/groups x C/groups x
    taps), few blocks, and its reduction is the batch's output pixels, long.
    ResNet-50's res2 3x3 at batch 32 is 64 x 576: 9 workgroups of 64 x 64 for
    a 304-CU MI300X, each over a 100,352-long reduction. Only a split fills
    the machine, so every wgrad layer but the widest is split.

    How many ways: the generic GEMM selector's rule (select_split_k) on the
    whole launch (the filter blocks of every group, as rows), capped at
    WGRAD_MAX_SPLIT = 64 ways. The cap is higher than the forward's 16 because
    the reduction is: at 64 ways res2's splits still run 49 k steps each.

    Which variant (WgradSplitPolicy.mode):
      - "none" when the selector says 1 (the launch fills the CUs alone);
      - "two_stage" when the workspace, S x dw's elements in f32, fits
        WORKSPACE_BYTES (64 MiB): its result is the same bits every run (the
        reduce kernel adds the slices in a fixed order), and the reduce pass
        reads a workspace that small in a fraction of the GEMM's time;
      - "atomic" when it does not: no workspace (dw itself is the f32
        accumulator, zeroed first), at the price of a run-to-run order of
        addition; S is the same.
    A layer whose f32 dw would not fit the kernel's 32-bit offsets runs "none".
    """
    m, n, k = spec.gemm
    tile = spec.igemm.tile
    rows = -(-m // tile.block_m) * spec.conv.groups * tile.block_m
    split = select_split_k(rows, n, k, arch, tile.block_m, tile.block_n, tile.block_k, max_split)
    if split == 1 or spec.elements * _F32_BYTES > MAX_TENSOR_BYTES:
        return WgradSplitPolicy("none", 1)
    if split * spec.elements * _F32_BYTES <= workspace_bytes:
        return WgradSplitPolicy("two_stage", split)
    return WgradSplitPolicy("atomic", split)
