"""conv_igemm_dgrad's main loop through each flavor's real LLVM, measured by
platform/isa, on ResNet-50's 3x3 shapes, stride 1 and 2: the loop is a matrix
loop, and on every arch of tile.gemm.QUARTER_COVER each of its global loads
has at least a quarter of the loop's matrix ops to cover it. (The family's 1x1
cases reduce over K = 32, one k step: LLVM folds that loop away, and their main
loop is the guarded one; tools/bench/catalog_loops.sh measures the real 1x1
layers.)"""

import pytest

from conv import compile_checks as checks
from conv.igemm_dgrad import FAMILY
from conv.igemm_tiles import TILES
from tile.gemm import QUARTER_COVER

CASES = ("resnet50_3x3_c64", "resnet_3x3_stride2")
COVERED = [arch for arch in checks.known(TILES) if arch in QUARTER_COVER]


def test_the_flavor_knows_some_covered_arch():
    assert COVERED, f"{checks.TC.flavor} knows none of {QUARTER_COVER}"


@pytest.mark.parametrize("arch,name", [(arch, name) for arch in COVERED for name in CASES])
def test_every_load_has_a_quarter_of_the_matrix_ops_to_cover_it(arch, name):
    report = checks.main_loop_report(FAMILY, f"{name}_{arch}")
    matrix = report["main_loop"]["matrix"]
    assert matrix["count"] and all(
        r["mnemonic"].startswith(checks.MATRIX_INSTRUCTION[arch]) for r in matrix["by_mnemonic"]
    ), matrix
    checks.check_cover(report, arch)
