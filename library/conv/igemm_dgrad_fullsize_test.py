"""conv_igemm_dgrad at full size (igemm_fullsize_test.py's idea for the data
gradient): every ResNet-50 layer and a 3-D video layer build, lower and
compile (never run) with the flavor under test, with no spill and within
each arch's registers (platform/family/budget.py), on every arch of the
tile table the flavor knows (llvm20 does not know gfx1250, so it is not
collected there).
"""

import pytest

from conv.compile_checks import LAYERS, known, matrix_code
from conv.igemm_dgrad import build
from conv.igemm_tiles import TILES, spec_for
from family.family import Case


@pytest.mark.parametrize("arch", known(TILES))
@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layer_compiles_without_spills(layer, arch):
    matrix_code(build(Case(f"{layer}_{arch}", arch, spec_for(arch, LAYERS[layer]))), arch)
