"""The occupancy formula, bound by bound, on figures worked out by hand from
archs.json (toolchains/llvm:occupancy_test checks it against llc)."""

import pytest

from arch import occupancy

# (arch, wave, vgpr, sgpr, lds, workgroup size) -> waves per SIMD.
CASES = [
    # gfx942: 512 VGPRs per lane in granules of 8, at most 8 waves.
    (("gfx942", 64, 7, 10, 0, 256), 8),  # below one granule: no bound
    (("gfx942", 64, 64, 10, 0, 256), 8),  # 512 / 64
    (("gfx942", 64, 65, 10, 0, 256), 7),  # 512 / 72
    (("gfx942", 64, 128, 10, 0, 256), 4),
    (("gfx942", 64, 512, 10, 0, 256), 1),
    # gfx9 SGPRs: 800 in granules of 16.
    (("gfx942", 64, 8, 96, 0, 256), 8),  # 800 / 96
    (("gfx942", 64, 8, 97, 0, 256), 7),  # 800 / 112
    # gfx1201 wave32: 1536 VGPRs in granules of 24, at most 16 waves;
    # SGPRs bound nothing.
    (("gfx1201", 32, 96, 106, 0, 128), 16),
    (("gfx1201", 32, 100, 106, 0, 128), 12),  # 1536 / 120
    (("gfx1201", 64, 100, 106, 0, 128), 7),  # wave64: 768 in granules of 12: 768 / 108
    # LDS: gfx942's CU holds 64 KiB. 64 KiB per workgroup: one workgroup of
    # at most 4 waves (256 lanes) -> 4 waves over 4 SIMDs -> 1.
    (("gfx942", 64, 8, 10, 65536, 256), 1),
    # 20 KiB: 3 groups fit; of 16 waves (1024 lanes) the 32 wave slots take
    # 2 -> 32 waves -> 8.
    (("gfx942", 64, 8, 10, 20480, 1024), 8),
    # 20 KiB, 64 lanes: 3 one-wave groups -> 3 waves -> 1 per SIMD.
    (("gfx942", 64, 8, 10, 20480, 64), 1),
    # gfx1201's WGP holds 128 KiB: 2 groups of 64 KiB, 8 waves of 32 lanes
    # each (256 lanes) -> 16 waves over 4 SIMDs -> 4.
    (("gfx1201", 32, 8, 10, 65536, 256), 4),
]


@pytest.mark.parametrize("args, waves", CASES)
def test_waves_per_simd(args, waves):
    name, *figures = args
    assert occupancy.waves_per_simd(name, "llvm22", *figures) == waves


# LLVM 23 and 24 round LDS up to the allocation granule first: 3300 bytes on
# gfx1201 (a 128 KiB WGP, one-wave workgroups) are 3584 in LLVM 23 (36
# groups -> 9 waves per SIMD) and 4096 in LLVM 24 (32 -> 8); LLVM 22 divides
# 3300 itself (39 -> 10).
@pytest.mark.parametrize("flavor, waves", [("llvm22", 10), ("llvm23", 9), ("llvm24", 8)])
def test_lds_granule_per_llvm(flavor, waves):
    assert occupancy.waves_per_simd("gfx1201", flavor, 64, 8, 10, 3300, 64) == waves


def test_a_flavor_that_lacks_the_arch_is_named():
    with pytest.raises(ValueError, match="expected a flavor that knows gfx1250"):
        occupancy.waves_per_simd("gfx1250", "llvm20", 32, 8, 8, 0, 64)


def test_a_wave_size_the_arch_lacks_is_named():
    with pytest.raises(ValueError, match=r"gfx942 runs waves of \[64\] lanes, got wave size 32"):
        occupancy.waves_per_simd("gfx942", "llvm22", 32, 8, 8, 0, 64)
