"""The one-output-per-lane families at full size: conv_direct_fwd on every
ResNet-50 layer, MobileNetV2's depthwise layers and a 3-D video layer, and
conv_img2col on the ResNet-50 and video layers (groups 1), build, lower and
compile (never run) with the flavor under test, with no spill and within
each arch's registers, on every conv arch the flavor knows (llvm20 does not
know gfx1250, so it is not collected there).
"""

import json
import os

import pytest

from conv import direct_fwd, img2col, networks
from case_archs import ARCHS as CONV_ARCHS
from conv.compile_checks import code_object, known
from family.family import Case

DENSE = {**networks.RESNET50, **networks.VIDEO}
# MobileNetV2's depthwise layers: the catalog's (their one home), at batch 32.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "catalog", "mobilenet_v2.json")) as f:
    MOBILENET_V2_DEPTHWISE = networks.depthwise(json.load(f))
LAYERS = [(direct_fwd, name, spec) for name, spec in {**DENSE, **MOBILENET_V2_DEPTHWISE}.items()]
LAYERS += [(img2col, name, spec) for name, spec in DENSE.items()]


@pytest.mark.parametrize("arch", known(CONV_ARCHS))
@pytest.mark.parametrize("module,layer,spec", LAYERS, ids=[f"{m.FAMILY.name}-{name}" for m, name, _ in LAYERS])
def test_layer_compiles_without_spills(module, layer, spec, arch):
    code_object(module.build(Case(f"{layer}_{arch}", arch, spec)), arch)
