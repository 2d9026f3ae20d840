"""conv_igemm_wgrad's ResNet 3x3 case (C = K = 64) through each flavor's real
LLVM, measured by platform/isa: the main loop is the tile's fast loop, and
its tiles load 16 bytes at a time: dy (A, column-major) two loads per lane
and step, x (B, gathered along rows: 8 channels of one input pixel per
load) two more, where a per-element gather of x would take eight."""

import pytest

from conv.igemm_wgrad import FAMILY
from conv.wgrad_spec import TILES
from isa import analyze
from lower import flavors
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()
CASES = {c.id: c for c in FAMILY.cases}
KNOWN = [arch for arch in TILES if arch in flavors.get(TC.flavor).cpus]
# Matrix ops per main-loop iteration: the wave's sub-tiles (64x64 over its
# waves, in the op's M x N) times the k steps of 32 (the op's K).
MATRIX = {"gfx942": ("v_mfma_f32_16x16x16", 2 * 2 * 2), "gfx950": ("v_mfma_f32_32x32x16", 1 * 1 * 2), "gfx1201": ("v_wmma_f32_16x16x16", 1 * 2 * 2), "gfx1250": ("v_wmma_f32_16x16x32", 1 * 2 * 1)}
# Global loads per lane and main-loop iteration: A's 64 x 32 tile is 128 pairs of 16-byte
# loads, B's as many; 256 lanes take one pair of each.
GLOBAL_LOADS = 4


def test_the_flavor_knows_some_tile_arch():
    assert KNOWN, f"{TC.flavor} knows none of {sorted(TILES)}"


@pytest.fixture(scope="module", params=KNOWN)
def measured(request):
    arch = request.param
    report = analyze.report(FAMILY.build(CASES[f"resnet_3x3_c64_{arch}"]), TC)
    assert report["main_loop"] is not None, f"no main loop found in resnet_3x3_c64_{arch} with {TC.flavor}"
    return arch, report


def test_main_loop_is_the_matrix_loop(measured):
    arch, report = measured
    matrix = report["main_loop"]["matrix"]
    mnemonic, count = MATRIX[arch]
    assert matrix["count"] == count and all(r["mnemonic"].startswith(mnemonic) for r in matrix["by_mnemonic"]), matrix


def test_both_tiles_load_16_bytes_at_a_time(measured):
    arch, report = measured
    loads = report["main_loop"]["global_loads"]
    assert loads["count"] == GLOBAL_LOADS and {r["bytes"] for r in loads["by_mnemonic"]} == {16}, (arch, loads)


def test_no_spills_and_no_modelled_bank_conflicts(measured):
    _, report = measured
    res = report["resources"]
    assert (res["vgpr_spill"], res["sgpr_spill"], res["scratch"]) == (0, 0, 0), res
    assert report["lds_banks"]["conflicted"] == 0
