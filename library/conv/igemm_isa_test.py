"""conv_igemm_fwd's ResNet-50 3x3 case (C = K = 64) through each flavor's
real LLVM, measured by platform/isa: the main loop is the tile's fast loop,
the gathered A tile costs no more than a dense one (16-byte loads), and at
least a quarter of the loop's matrix ops cover each of its loads."""

import pytest

from conv import compile_checks as checks
from conv.igemm_fwd import FAMILY
from conv.igemm_tiles import TILES
from tile.gemm import QUARTER_COVER

KNOWN = checks.known(TILES)
# Matrix ops per k step: the wave's sub-tiles (128x64 over its waves, in the
# op's M x N) times the k steps of 32 (the op's K).
MATRIX_OPS = {"gfx942": 4 * 2 * 2, "gfx950": 2 * 1 * 2, "gfx1201": 2 * 2 * 2, "gfx1250": 2 * 2 * 1}
# LDS writes per k step: A (128 x 32 f16) and B (64 x 32) in 16-byte units over 256 lanes, 2 + 1.
LDS_WRITES = 3


def test_the_flavor_knows_some_tile_arch():
    assert KNOWN, f"{checks.TC.flavor} knows none of {sorted(TILES)}"


@pytest.fixture(scope="module", params=KNOWN)
def measured(request):
    return request.param, checks.main_loop_report(FAMILY, f"resnet50_3x3_c64_{request.param}")


def _k_steps(report):
    """k steps per machine-loop iteration, counted by the tile's LDS writes (LLVM unrolls a small loop)."""
    writes = report["main_loop"]["lds_writes"]["count"]
    assert writes and writes % LDS_WRITES == 0, report["main_loop"]["lds_writes"]
    return writes // LDS_WRITES


def test_main_loop_is_the_matrix_loop(measured):
    arch, report = measured
    checks.check_matrix_loop(report, arch, MATRIX_OPS[arch] * _k_steps(report))


def test_the_gathered_and_the_weight_tiles_load_16_bytes_at_a_time(measured):
    # Per k step: A and B in 16-byte units, as many loads as LDS writes, 2 + 1.
    checks.check_global_loads(measured[1], LDS_WRITES * _k_steps(measured[1]))


@pytest.mark.parametrize("arch", [a for a in KNOWN if a in QUARTER_COVER])
def test_every_load_has_a_quarter_of_the_matrix_ops_to_cover_it(arch):
    checks.check_cover(checks.main_loop_report(FAMILY, f"resnet50_3x3_c64_{arch}"), arch)


def test_no_spills_and_no_modelled_bank_conflicts(measured):
    checks.check_no_spills_or_bank_conflicts(measured[1])
