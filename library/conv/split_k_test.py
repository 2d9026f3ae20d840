"""select_split_k_fwd and select_split_k_wgrad on real layer shapes
(ResNet-50 at batch 32 and 1, the video layer, grouped layers) and as
properties over random layers."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arch import arch as archs
from conv import networks, wgrad_spec
from conv.igemm_tiles import TILES, spec_for
from conv.spec import ConvSpec
from conv.split_k import MAX_SPLIT, select_split_k, select_split_k_fwd
from conv.split_k import WGRAD_MAX_SPLIT, WORKSPACE_BYTES, WgradSplitPolicy, select_split_k_wgrad


def _workgroups(spec):
    return math.prod(spec.grid())


def _check_rules(spec, arch, split):
    """The docstring's rules, each an assertion."""
    wg, cus = _workgroups(spec), archs.get(arch).cus
    k, block_k = spec.gemm[2], spec.tile.block_k
    assert split >= 1 and split & (split - 1) == 0 and split <= MAX_SPLIT
    if wg >= cus:
        assert split == 1  # a launch that fills the CUs is not split
    if split > 1:
        assert wg * split < 2 * cus  # never more workgroups than fill the CUs twice
        assert k // split >= 2 * block_k  # every split keeps two k steps
    # Maximal: doubling once more breaks a rule.
    assert split * 2 > MAX_SPLIT or wg * split >= cus or k // (split * 2) < 2 * block_k


def test_resnet50_at_batch_32_fills_the_machine_unsplit_until_res5():
    for arch in TILES:
        for name, conv in networks.RESNET50.items():
            spec = spec_for(arch, conv)
            split = select_split_k_fwd(spec, arch)
            _check_rules(spec, arch, split)
            if name.startswith(("conv1", "res2", "res3")):
                assert split == 1, (arch, name)  # 784+ pixel blocks: thousands of workgroups


def test_resnet50_at_batch_1_splits_its_late_layers():
    for arch in TILES:
        splits = {}
        for name, conv in networks.RESNET50.items():
            spec = spec_for(
                arch, ConvSpec(1, conv.c, conv.k, conv.spatial, conv.filter, stride=conv.stride, pad=conv.pad)
            )
            splits[name] = select_split_k_fwd(spec, arch)
            _check_rules(spec, arch, splits[name])
        # res5's 3x3: 49 pixels (one block) x 8 filter blocks = 8 workgroups, k = 4,608: 16 ways on
        # the 256- and 304-CU parts; gfx1201's 64 CUs are full at 8 x 8.
        assert splits["res5_3x3"] == {"gfx942": 16, "gfx950": 16, "gfx1201": 8, "gfx1250": 16}[arch], arch
        # The stem's reduction is 3 x 49 = 147: two k steps of 32 fit twice, not four times.
        assert splits["conv1_7x7_s2"] <= 2, arch


def test_the_video_layer_is_not_split():
    for arch in TILES:
        spec = spec_for(arch, networks.VIDEO["r3d_3x3x3"])
        assert select_split_k_fwd(spec, arch) == 1


def test_groups_count_as_workgroups():
    # The same per-group GEMM, once and 32 times: the grouped launch needs less split.
    one = spec_for("gfx942", ConvSpec(1, 128, 128, (7, 7), (3, 3), pad=(1, 1)))
    grouped = spec_for("gfx942", ConvSpec(1, 128 * 32, 128 * 32, (7, 7), (3, 3), pad=(1, 1), groups=32))
    assert one.gemm == grouped.gemm
    assert select_split_k_fwd(one, "gfx942") == MAX_SPLIT
    # 2 filter blocks x 32 groups = 64 workgroups: doubling stops once 64 x 8 = 512 passes 304 CUs.
    assert select_split_k_fwd(grouped, "gfx942") == 8


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    arch=st.sampled_from(sorted(TILES)),
    n=st.integers(1, 64),
    c=st.integers(1, 64),
    k=st.integers(1, 64),
    groups=st.sampled_from([1, 2, 4, 32]),
    size=st.integers(1, 64),
    f=st.sampled_from([1, 3, 5, 7]),
    stride=st.integers(1, 2),
)
def test_rules_hold_for_random_layers(arch, n, c, k, groups, size, f, stride):
    conv = ConvSpec(
        n, c * groups, k * groups, (size, size), (f, f), stride=(stride, stride), pad=(f // 2, f // 2), groups=groups
    )
    spec = spec_for(arch, conv)
    _check_rules(spec, arch, select_split_k_fwd(spec, arch))


# -- select_split_k_wgrad --------------------------------------------------------------


def _check_wgrad_rules(spec, arch, policy, budget=WORKSPACE_BYTES):
    """select_split_k_wgrad's docstring, each rule an assertion."""
    wg, cus, split = _workgroups(spec), archs.get(arch).cus, policy.split
    assert spec.split == 1 and policy.mode in wgrad_spec.MODES
    assert split >= 1 and split & (split - 1) == 0 and split <= WGRAD_MAX_SPLIT
    assert (policy.mode == "none") == (split == 1)
    if wg >= cus:
        assert split == 1  # a launch that fills the CUs is not split
    if split > 1:
        assert wg * split < 2 * cus  # never more workgroups than fill the CUs twice
        assert spec.gemm[2] // split >= 2 * spec.igemm.tile.block_k  # every split keeps two k steps
        workspace = split * spec.elements * 4
        assert (policy.mode == "two_stage") == (workspace <= budget)
        # The launch rule bounds the workspace whatever the layer: S x E <= S x workgroups x one block < 2 x CUs x one block.
        assert workspace < 2 * cus * spec.igemm.tile.block_m * spec.igemm.tile.block_n * 4
    # The policy's spec is valid (every split owns rows) and its splits cover the reduction.
    split_spec = policy.apply(spec)
    assert split_spec.rows(split - 1)[1] == spec.gemm[2] and all(
        split_spec.rows(s)[0] < split_spec.rows(s)[1] for s in range(split)
    )
    # Determinism: the same answer for an equal spec built afresh.
    assert select_split_k_wgrad(wgrad_spec.WgradSpec.from_json(spec.to_json()), arch, workspace_bytes=budget) == policy


def test_wgrad_resnet50_at_batch_32_splits_its_narrow_layers():
    for arch in wgrad_spec.TILES:
        policies = {}
        for name, conv in {**networks.RESNET50, **networks.VIDEO}.items():
            spec = wgrad_spec.spec_for(arch, conv)
            policies[name] = select_split_k_wgrad(spec, arch)
            _check_wgrad_rules(spec, arch, policies[name])
        # res2's 3x3 is 64 x 576: 3 workgroups of 64 x 256 over a 100,352-long reduction. Doubling
        # runs to the cap, 3 x 64 = 192 workgroups, on 304 and 256 CUs, and to 3 x 32 on gfx1201's 64.
        assert policies["res2_3x3"] == WgradSplitPolicy(
            "two_stage", {"gfx942": 64, "gfx950": 64, "gfx1201": 32, "gfx1250": 64}[arch]
        ), arch
        # res5's 3x3 is 512 x 4,608: 4 x 36 = 144 workgroups of 128 x 128. Doubling while under the
        # CUs: to 576 on 304 (4 ways), 288 on 256 (2); gfx1201's 64 are filled unsplit.
        assert (
            policies["res5_3x3"]
            == {
                "gfx942": WgradSplitPolicy("two_stage", 4),
                "gfx950": WgradSplitPolicy("two_stage", 2),
                "gfx1201": WgradSplitPolicy("none", 1),
                "gfx1250": WgradSplitPolicy("two_stage", 2),
            }[arch]
        ), arch


def test_wgrad_atomic_when_the_workspace_budget_is_small():
    spec = wgrad_spec.spec_for("gfx942", networks.RESNET50["res2_3x3"])
    assert select_split_k_wgrad(spec, "gfx942", workspace_bytes=0) == WgradSplitPolicy("atomic", 64)
    # 64 slices of 64 x 576 f32: exactly 9,437,184 bytes fit, one byte fewer does not.
    assert select_split_k_wgrad(spec, "gfx942", workspace_bytes=64 * 64 * 576 * 4).mode == "two_stage"
    assert select_split_k_wgrad(spec, "gfx942", workspace_bytes=64 * 64 * 576 * 4 - 1).mode == "atomic"


def test_wgrad_groups_count_as_workgroups():
    one = wgrad_spec.spec_for("gfx942", ConvSpec(8, 128, 128, (14, 14), (3, 3), pad=(1, 1)))
    grouped = wgrad_spec.spec_for("gfx942", ConvSpec(8, 128 * 64, 128 * 64, (14, 14), (3, 3), pad=(1, 1), groups=64))
    assert one.gemm == grouped.gemm
    # 9 workgroups of 128 x 128: doubling stops at 16, where a split would run fewer than two
    # k steps of 32 (1,568 / 32 = 49); grouped, 9 x 64 = 576 workgroups fill the CUs.
    assert select_split_k_wgrad(one, "gfx942") == WgradSplitPolicy("two_stage", 16)
    assert select_split_k_wgrad(grouped, "gfx942") == WgradSplitPolicy("none", 1)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    arch=st.sampled_from(sorted(wgrad_spec.TILES)),
    n=st.integers(1, 64),
    c=st.integers(1, 64),
    k=st.integers(1, 64),
    groups=st.sampled_from([1, 2, 4, 32]),
    size=st.integers(1, 64),
    f=st.sampled_from([1, 3, 5, 7]),
    stride=st.integers(1, 2),
    budget=st.sampled_from([0, 2**20, WORKSPACE_BYTES]),
)
def test_wgrad_rules_hold_for_random_layers(arch, n, c, k, groups, size, f, stride, budget):
    conv = ConvSpec(
        n, c * groups, k * groups, (size, size), (f, f), stride=(stride, stride), pad=(f // 2, f // 2), groups=groups
    )
    spec = wgrad_spec.spec_for(arch, conv)
    _check_wgrad_rules(spec, arch, select_split_k_wgrad(spec, arch, workspace_bytes=budget), budget)


# -- select_split_k, the generic GEMM selector ---------------------------------------


def test_big_grid_needs_no_split():
    assert select_split_k(8192, 8192, 8192, "gfx942", 128, 128, 32) == 1


def test_skinny_problem_with_long_k_splits():
    # 1 workgroup, K long enough: split until max_split.
    assert select_split_k(64, 64, 65536, "gfx942", 64, 64, 32) == 16


def test_short_k_limits_the_split():
    # k = 256 with tile_k 32: at most 256 // (2 * 32) = 4 ways.
    assert select_split_k(64, 64, 256, "gfx942", 64, 64, 32) == 4


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="expected tile_k to be a positive int, got 0"):
        select_split_k(64, 64, 64, "gfx942", 64, 64, 0)
    with pytest.raises(archs.UnknownArchError):
        select_split_k(64, 64, 64, "gfx000", 64, 64, 16)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.integers(1, 1 << 14),
    st.integers(1, 1 << 14),
    st.integers(1, 1 << 16),
    st.sampled_from(sorted(archs.ARCHS)),
    st.sampled_from([16, 32, 64, 128]),
    st.sampled_from([16, 32, 64]),
)
def test_split_is_a_bounded_power_of_two_keeping_k_tiles(m, n, k, name, tile, tile_k):
    split = select_split_k(m, n, k, name, tile, tile, tile_k)
    assert 1 <= split <= 16 and split & (split - 1) == 0
    if split > 1:
        assert k // split >= tile_k
