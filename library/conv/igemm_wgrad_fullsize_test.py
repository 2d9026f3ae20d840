"""conv_igemm_wgrad at full size: every ResNet-50 layer and the 3-D video
layer, with the split the planner picks (select_split_k_wgrad), build, lower
and compile (never run) with the flavor under test, with no spill and within
each arch's registers (platform/family/budget.py), on every arch of the tile
table the flavor knows (llvm20 does not know gfx1250). The acceptance layer
also compiles unsplit and atomic, so every mode is compiled at full size,
and the atomic one adds with the arch's f32 atomic add instruction.
"""

import pytest

from conv.compile_checks import LAYERS, known, matrix_code
from conv.igemm_wgrad import build
from conv.split_k import WgradSplitPolicy, select_split_k_wgrad
from conv.wgrad_spec import TILES, spec_for
from family.family import Case

# The acceptance layer's other modes, beside the planner's choice.
EXTRA = {"res2_3x3_n2": (WgradSplitPolicy("none", 1), WgradSplitPolicy("atomic", 8))}


def _specs(layer, arch):
    spec = spec_for(arch, LAYERS[layer])
    policies = (select_split_k_wgrad(spec, arch),) + EXTRA.get(layer, ())
    return [policy.apply(spec) for policy in dict.fromkeys(policies)]


@pytest.mark.parametrize("arch", known(TILES))
@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layer_compiles_without_spills(layer, arch):
    for spec in _specs(layer, arch):
        text = matrix_code(build(Case(f"{layer}_{spec.mode}_{arch}", arch, spec)), arch)
        if spec.mode == "atomic":  # the f32 atomic add is the arch's own instruction, not a compare-and-swap loop
            assert "global_atomic_add_f32" in text and "cmpswap" not in text
