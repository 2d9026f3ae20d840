"""conv_igemm_fwd's ResNet-50 3x3 case (C = K = 64) through each flavor's
real LLVM, measured by platform/isa: the main loop is the tile's fast loop,
and the gathered A tile costs no more than a dense one (16-byte loads)."""

import pytest

from conv.igemm_fwd import FAMILY
from conv.igemm_tiles import TILES
from isa import analyze
from lower import flavors
from toolchains.llvm.llvm import Toolchain

TC = Toolchain.current()
CASES = {c.id: c for c in FAMILY.cases}
KNOWN = [arch for arch in TILES if arch in flavors.get(TC.flavor).cpus]
# Matrix ops per main-loop iteration: the wave's sub-tiles (128x64 over its
# waves, in the op's M x N) times the k steps of 32 (the op's K).
MATRIX = {"gfx942": ("v_mfma_f32_16x16x16", 4 * 2 * 2), "gfx950": ("v_mfma_f32_32x32x16", 2 * 1 * 2), "gfx1201": ("v_wmma_f32_16x16x16", 2 * 2 * 2), "gfx1250": ("v_wmma_f32_16x16x32", 2 * 2 * 1)}


def test_the_flavor_knows_some_tile_arch():
    assert KNOWN, f"{TC.flavor} knows none of {sorted(TILES)}"


@pytest.fixture(scope="module", params=KNOWN)
def measured(request):
    arch = request.param
    report = analyze.report(FAMILY.build(CASES[f"resnet50_3x3_c64_{arch}"]), TC)
    assert report["main_loop"] is not None, f"no main loop found in resnet50_3x3_c64_{arch} with {TC.flavor}"
    return arch, report


def test_main_loop_is_the_matrix_loop(measured):
    arch, report = measured
    matrix = report["main_loop"]["matrix"]
    mnemonic, count = MATRIX[arch]
    assert matrix["count"] == count and all(r["mnemonic"].startswith(mnemonic) for r in matrix["by_mnemonic"]), matrix


def test_the_gathered_and_the_weight_tiles_load_16_bytes_at_a_time(measured):
    # Per k step: A (128 x 32 f16) and B (64 x 32) in 16-byte units over 256 lanes: 2 + 1 loads.
    _, report = measured
    loads = report["main_loop"]["global_loads"]
    assert loads["count"] == 3 and {r["bytes"] for r in loads["by_mnemonic"]} == {16}, loads


def test_no_spills_and_no_modelled_bank_conflicts(measured):
    _, report = measured
    res = report["resources"]
    assert (res["vgpr_spill"], res["sgpr_spill"], res["scratch"]) == (0, 0, 0), res
    assert report["lds_banks"]["conflicted"] == 0
