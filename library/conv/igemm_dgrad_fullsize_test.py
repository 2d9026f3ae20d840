"""conv_igemm_dgrad at full size (igemm_fullsize_test.py's idea for the data
gradient): every ResNet-50 layer and a 3-D video layer build, lower and
compile (never run) with the flavor under test, with no spill and within
each arch's registers (platform/family/budget.py), on every arch of the
tile table the flavor knows (llvm20 does not know gfx1250, so it is not
collected there).
"""

import pytest

from conv import networks
from conv.igemm_dgrad import build
from conv.igemm_tiles import TILES, spec_for
from family.budget import overruns
from family.family import Case
from lower import flavors
from lower.llvm import lower
from toolchains.llvm.llvm import Toolchain, resources

TC = Toolchain.current()
ARCHS = [arch for arch in TILES if arch in flavors.get(TC.flavor).cpus]
LAYERS = {**networks.RESNET50, **networks.VIDEO, **networks.ACCEPTANCE}
MATRIX_INSTRUCTION = {"gfx942": "v_mfma_f32_16x16x16", "gfx950": "v_mfma_f32_32x32x16", "gfx1201": "v_wmma_f32_16x16x16", "gfx1250": "v_wmma_f32_16x16x32"}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layer_compiles_without_spills(layer, arch):
    case = Case(f"{layer}_{arch}", arch, spec_for(arch, LAYERS[layer]))
    ir = lower(build(case), TC.flavor)
    out = TC.compile(ir, arch)  # parses and verifies first
    assert not out.has_indirect_call
    figures = resources(out)
    assert not overruns(figures, arch), f"{case.id} with {TC.flavor}: " + "; ".join(overruns(figures, arch))
    code_object = TC.link(out.obj)
    assert code_object[:4] == b"\x7fELF"
    assert MATRIX_INSTRUCTION[arch] in TC.disassemble(code_object, arch)
