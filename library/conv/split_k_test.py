"""select_split_k_fwd on real layer shapes (ResNet-50 at batch 32 and 1,
the video layer, grouped layers) and as properties over random layers."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from conv import networks
from conv.igemm_tiles import TILES, spec_for
from conv.spec import ConvSpec
from conv.split_k import MAX_SPLIT, select_split_k_fwd
from helpers.helpers import num_cus


def _workgroups(spec):
    return math.prod(spec.grid())


def _check_rules(spec, arch, split):
    """The docstring's rules, each an assertion."""
    wg, cus = _workgroups(spec), num_cus(arch)
    k, block_k = spec.gemm[2], spec.block_k
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
            spec = spec_for(arch, ConvSpec(1, conv.c, conv.k, conv.spatial, conv.filter, stride=conv.stride, pad=conv.pad))
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
    conv = ConvSpec(n, c * groups, k * groups, (size, size), (f, f), stride=(stride, stride), pad=(f // 2, f // 2), groups=groups)
    spec = spec_for(arch, conv)
    _check_rules(spec, arch, select_split_k_fwd(spec, arch))
