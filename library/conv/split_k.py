"""The split-K planner of conv_igemm_fwd: how many ways to split a layer's reduction.

select_split_k_fwd(spec) -> a power of two, 1 when the layer needs no split.

A forward layer's GEMM (conv.igemm_tiles.IgemmSpec.gemm) is reduced over
C/groups x filter taps. Late ResNet layers at small batch have few output
pixels and so few workgroups: res5's 3x3 at batch 1 is 49 pixels x 512
filters, 8 workgroups of 128 x 64 on a 304-CU MI300X, and each runs a
4,608-long reduction alone. Splitting that reduction S ways runs S times
as many workgroups, each over 1/S of it (IgemmSpec.split_k), their f32
partial sums added after by a second kernel (conv.split_k_reduce); the
planner (library/planner/choose.py) builds both when this picks S > 1.

The rules are platform/helpers' generic GEMM selector's (helpers.select_split_k),
applied to the whole launch: its workgroups are the pixel blocks x filter
blocks of one group times the groups, so a grouped layer already fills
more of the machine. Starting from 1, the split doubles while
  - the launch (workgroups x split) is still below the arch's CU count
    (helpers.num_cus): so a split launch never holds more workgroups than
    fill the CUs twice;
  - the split stays at most max_split (16: beyond it the f32 workspace and
    the reduce pass cost more than the extra parallelism gains);
  - every split still reduces at least two k steps (k // split >= 2 x
    block_k), so the main loop keeps its prefetch pipeline busy.
A launch that already fills the CUs is not split.
"""

from helpers.helpers import num_cus, select_split_k

MAX_SPLIT = 16


def select_split_k_fwd(spec, arch, max_split=MAX_SPLIT):
    """Ways to split the reduction of IgemmSpec `spec` on `arch` (a power of two)."""
    m, n, k = spec.gemm
    blocks_x, blocks_y, groups = spec.grid()
    # The generic selector counts ceil(m / tile_m) * ceil(n / tile_n) workgroups:
    # give it the launch's rows (pixel blocks of every group) in whole tiles.
    rows = blocks_y * groups * spec.block_m
    return select_split_k(rows, n, k, arch, spec.block_m, spec.block_n, spec.block_k, max_split)
