"""conv_igemm_wgrad at full size: every ResNet-50 layer and the 3-D video
layer, with the split the planner picks (select_split_k_wgrad), build, lower
and compile (never run) with the flavor under test, with no spill and within
each arch's registers (platform/family/budget.py), on every arch of the tile
table the flavor knows (llvm20 does not know gfx1250). The acceptance layer
also compiles unsplit and atomic, so every mode is compiled at full size,
and the atomic one adds with the arch's f32 atomic add instruction.
"""

import pytest

from conv import networks
from conv.igemm_wgrad import build
from conv.split_k import WgradSplitPolicy, select_split_k_wgrad
from conv.wgrad_spec import TILES, spec_for
from family.budget import overruns
from family.family import Case
from lower import flavors
from lower.llvm import lower
from toolchains.llvm.llvm import Toolchain, resources

TC = Toolchain.current()
ARCHS = [arch for arch in TILES if arch in flavors.get(TC.flavor).cpus]
LAYERS = {**networks.RESNET50, **networks.VIDEO, **networks.ACCEPTANCE}
MATRIX_INSTRUCTION = {"gfx942": "v_mfma_f32_16x16x16", "gfx950": "v_mfma_f32_32x32x16", "gfx1201": "v_wmma_f32_16x16x16", "gfx1250": "v_wmma_f32_16x16x32"}
# The acceptance layer's other modes, beside the planner's choice.
EXTRA = {"res2_3x3_n2": (WgradSplitPolicy("none", 1), WgradSplitPolicy("atomic", 8))}


def _specs(layer, arch):
    spec = spec_for(arch, LAYERS[layer])
    policies = (select_split_k_wgrad(spec, arch),) + EXTRA.get(layer, ())
    return [policy.apply(spec) for policy in dict.fromkeys(policies)]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layer_compiles_without_spills(layer, arch):
    for spec in _specs(layer, arch):
        case = Case(f"{layer}_{spec.mode}_{arch}", arch, spec)
        ir = lower(build(case), TC.flavor)
        out = TC.compile(ir, arch)  # parses and verifies first
        assert not out.has_indirect_call
        figures = resources(out)
        assert not overruns(figures, arch), f"{case.id} with {TC.flavor}: " + "; ".join(overruns(figures, arch))
        code_object = TC.link(out.obj)
        assert code_object[:4] == b"\x7fELF"
        text = TC.disassemble(code_object, arch)
        assert MATRIX_INSTRUCTION[arch] in text
        if spec.mode == "atomic":  # the f32 atomic add is the arch's own instruction, not a compare-and-swap loop
            assert "global_atomic_add_f32" in text and "cmpswap" not in text
