"""conv_igemm_wgrad's main loop through each flavor's real LLVM, measured by
platform/isa, for each block of conv.wgrad_spec.tile_for: ResNet's 1x1
(64 x 64, 128 x 128 and 256 x 64), its 3x3 with C = K = 64 (64 x 256) and
with K = 128 (128 x 128). The main loop is the tile's fast loop: the block's
matrix ops per 32-deep k step and no others, every global load 16 bytes wide
(dy, A, column-major; x, B, gathered along rows: 8 channels of one input
pixel per load, where a per-element gather would take eight; or, 1x1 with
stride 1, x itself as a row-major B), no spill, no modelled bank conflict
(but gfx950's 2-way writes of a 64-wide plain x, the test says why);
the bigger blocks spread the k step's other work over their matrix ops
(non-matrix instructions per 4096 MACs under a bound per arch); on gfx942,
gfx950 and gfx1201 every load has a quarter of the loop's matrix ops to cover it;
and on gfx950 a 1x1's B fragments are read transposed (ds_read_b64_tr_b16)."""

import functools

import pytest

from conv import compile_checks as checks
from conv.igemm_wgrad import FAMILY
from conv.wgrad_spec import TILES
from tile.gemm import QUARTER_COVER

KNOWN = checks.known(TILES)
# case -> its block (tile_for's) as (block_m, block_n).
CASES = {
    "resnet_1x1_f16": (64, 64),
    "resnet_1x1_k128_two_stage": (128, 128),
    "resnet_1x1_k256": (256, 64),
    "resnet_3x3_c64": (64, 256),
    "resnet_3x3_k128": (128, 128),
}
# The cases whose B is x itself (igemm_wgrad.plain_input).
PLAIN = ("resnet_1x1_f16", "resnet_1x1_k128_two_stage", "resnet_1x1_k256")
# Non-matrix instructions per 4096 MACs of a big block's main loop, at most, on every flavor: about
# two thirds of what the 64 x 64 block runs (11.6 on gfx942, 11.9 on gfx950, 31 on gfx1201, 28.8 on
# gfx1250 with llvm23: docs/figures/conv-isa.md); llvm20 schedules 64 x 256 worst (6.9 on CDNA).
BOUND = {"gfx942": 8.0, "gfx950": 8.0, "gfx1201": 20.0, "gfx1250": 19.0}
# The archs whose loop gives every load a quarter of its matrix ops (tile.gemm.QUARTER_COVER).
COVERED = [arch for arch in KNOWN if arch in QUARTER_COVER]


def _matrix_ops(tile):
    """Matrix ops a wave runs per k step: its share of the block in the op's M x N, times block_k over the op's K."""
    m, n, k = tile.mma_shape
    return (tile.block_m // tile.waves_m // m) * (tile.block_n // tile.waves_n // n) * (tile.block_k // k)


def test_the_flavor_knows_some_tile_arch():
    assert KNOWN, f"{checks.TC.flavor} knows none of {sorted(TILES)}"


@functools.cache
def _measure(arch, name):
    case = {c.id: c for c in FAMILY.cases}[f"{name}_{arch}"]
    tile = case.spec.igemm.tile
    assert (tile.block_m, tile.block_n) == CASES[name], case.id
    return arch, tile, checks.main_loop_report(FAMILY, case.id), name


@pytest.fixture(params=[(arch, name) for arch in KNOWN for name in CASES])
def measured(request):
    return _measure(*request.param)


@pytest.fixture(params=[(arch, name) for arch in KNOWN for name in CASES if CASES[name] != (64, 64)])
def big(request):
    return _measure(*request.param)


def test_main_loop_is_the_matrix_loop(measured):
    arch, tile, report, name = measured
    if name not in PLAIN:
        checks.check_matrix_loop(report, arch, _matrix_ops(tile))
        return
    # A plain x's loop is short enough that LLVM may unroll it 2 k steps deep (gfx950, gfx1250):
    # a whole number of k steps' matrix ops.
    matrix = report["main_loop"]["matrix"]
    assert matrix["count"] in (_matrix_ops(tile), 2 * _matrix_ops(tile)), matrix
    checks.check_matrix_loop(report, arch, matrix["count"])


def test_both_tiles_load_16_bytes_at_a_time(measured):
    loads = measured[2]["main_loop"]["global_loads"]
    assert loads["count"] >= 2 and {r["bytes"] for r in loads["by_mnemonic"]} == {16}, loads


def test_no_spills_and_no_modelled_bank_conflicts(measured):
    arch, tile, report, name = measured
    if not (arch == "gfx950" and name in PLAIN and tile.block_n == 64):
        checks.check_no_spills_or_bank_conflicts(report)
        return
    # gfx950 keeps a plain x as k-rows of block_n elements, padded for the transposed reads
    # (tile.gemm's TRANSPOSE_PAD): 64 of them are half a line, so a pass of 16-byte writes
    # meets the next row's, 2 ways. Those writes (one a lane and k step) are the only conflicts.
    res = report["resources"]
    assert (res["vgpr_spill"], res["sgpr_spill"], res["scratch"]) == (0, 0, 0), res
    conflicted = [a for a in report["lds_banks"]["accesses"] if (a["ways"] or 1) > 1]
    assert all((a["access"], a["bytes"], a["ways"]) == ("write", 16, 2) for a in conflicted), conflicted


@pytest.mark.parametrize("arch,name", [(arch, name) for arch in COVERED for name in CASES])
def test_every_load_has_a_quarter_of_the_matrix_ops_to_cover_it(arch, name):
    checks.check_cover(_measure(arch, name)[2], arch)


def test_a_big_block_spreads_its_work_over_its_matrix_ops(big):
    arch, tile, report, _ = big
    figure = float(report["main_loop"]["non_matrix_per_4096_macs"])
    assert figure <= BOUND[arch], (arch, tile, figure)


@pytest.mark.parametrize("arch,name", [(arch, name) for arch in KNOWN if arch == "gfx950" for name in PLAIN])
def test_gfx950_reads_a_1x1_inputs_fragments_transposed(arch, name):
    reads = _measure(arch, name)[2]["main_loop"]["lds_reads"]["by_mnemonic"]
    assert "ds_read_b64_tr_b16" in {r["mnemonic"] for r in reads}, reads
