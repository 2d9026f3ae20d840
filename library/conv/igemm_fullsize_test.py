"""conv_igemm_fwd at full size: every ResNet-50 layer and a 3-D video layer
build, lower and compile (never run) with the flavor under test, with no
spill and within each arch's registers (platform/family/budget.py), on
every arch of the tile table the flavor knows (llvm20 does not know
gfx1250, so it is not collected there); and late ResNet-50 layers at batch 1
split as the planner splits them, with their reduce kernels.
"""

import dataclasses
import math

import pytest

from conv import networks, split_k_reduce
from conv.compile_checks import LAYERS, code_object, known, matrix_code
from conv.igemm_fwd import build
from conv.igemm_tiles import TILES, spec_for
from conv.split_k import select_split_k_fwd
from family.family import Case

ARCHS = known(TILES)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layer_compiles_without_spills(layer, arch):
    matrix_code(build(Case(f"{layer}_{arch}", arch, spec_for(arch, LAYERS[layer]))), arch)


# Batch 1, where the launch of a late layer is far too small for the machine:
# the planner's split kernel and its reduce, at full size.
SPLIT_LAYERS = ("res3_3x3", "res4_3x3_s2", "res5_3x3", "res5_1x1_expand")


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("layer", SPLIT_LAYERS)
def test_split_layer_and_its_reduce_compile_without_spills(layer, arch):
    conv = dataclasses.replace(networks.RESNET50[layer], n=1)
    spec = dataclasses.replace(spec_for(arch, conv), split_k=select_split_k_fwd(spec_for(arch, conv), arch))
    assert spec.split_k > 1, layer
    matrix_code(build(Case(f"{layer}_{arch}", arch, spec)), arch)
    channels = split_k_reduce.channels_of(conv) if conv.bias_relu else None
    code_object(
        split_k_reduce.reduce_kernel(
            f"reduce_{layer}_{arch}", arch, math.prod(conv.output_shape()), spec.split_k, conv.dtype, channels
        ),
        arch,
    )
