"""conv_igemm_wgrad's ResNet 3x3 case (C = K = 64) through each flavor's real
LLVM, measured by platform/isa: the main loop is the tile's fast loop, and
its tiles load 16 bytes at a time: dy (A, column-major) two loads per lane
and step, x (B, gathered along rows: 8 channels of one input pixel per
load) two more, where a per-element gather of x would take eight."""

import pytest

from conv import compile_checks as checks
from conv.igemm_wgrad import FAMILY
from conv.wgrad_spec import TILES

KNOWN = checks.known(TILES)
# Matrix ops per main-loop iteration: the wave's sub-tiles (64x64 over its
# waves, in the op's M x N) times the k steps of 32 (the op's K).
MATRIX_OPS = {"gfx942": 2 * 2 * 2, "gfx950": 1 * 1 * 2, "gfx1201": 1 * 2 * 2, "gfx1250": 1 * 2 * 1}
# Global loads per lane and main-loop iteration: A's 64 x 32 tile is 128 pairs of 16-byte
# loads, B's as many; 256 lanes take one pair of each.
GLOBAL_LOADS = 4


def test_the_flavor_knows_some_tile_arch():
    assert KNOWN, f"{checks.TC.flavor} knows none of {sorted(TILES)}"


@pytest.fixture(scope="module", params=KNOWN)
def measured(request):
    return request.param, checks.main_loop_report(FAMILY, f"resnet_3x3_c64_{request.param}")


def test_main_loop_is_the_matrix_loop(measured):
    arch, report = measured
    checks.check_matrix_loop(report, arch, MATRIX_OPS[arch])


def test_both_tiles_load_16_bytes_at_a_time(measured):
    checks.check_global_loads(measured[1], GLOBAL_LOADS)


def test_no_spills_and_no_modelled_bank_conflicts(measured):
    checks.check_no_spills_or_bank_conflicts(measured[1])
