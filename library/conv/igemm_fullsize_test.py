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
from conv.igemm_fwd import build
from conv.igemm_tiles import TILES, spec_for
from conv.split_k import select_split_k_fwd
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


# Batch 1, where the launch of a late layer is far too small for the machine:
# the planner's split kernel and its reduce, at full size.
SPLIT_LAYERS = ("res3_3x3", "res4_3x3_s2", "res5_3x3", "res5_1x1_expand")


def _compile(kernel, arch):
    out = TC.compile(lower(kernel, TC.flavor), arch)
    assert not out.has_indirect_call
    figures = resources(out)
    assert not overruns(figures, arch), f"{kernel.name} with {TC.flavor}: " + "; ".join(overruns(figures, arch))
    return TC.link(out.obj)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("layer", SPLIT_LAYERS)
def test_split_layer_and_its_reduce_compile_without_spills(layer, arch):
    conv = dataclasses.replace(networks.RESNET50[layer], n=1)
    spec = dataclasses.replace(spec_for(arch, conv), split_k=select_split_k_fwd(spec_for(arch, conv), arch))
    assert spec.split_k > 1, layer
    split = _compile(build(Case(f"{layer}_{arch}", arch, spec)), arch)
    assert MATRIX_INSTRUCTION[arch] in TC.disassemble(split, arch)
    channels = split_k_reduce.channels_of(conv) if conv.bias_relu else None
    reduce = split_k_reduce.reduce_kernel(f"reduce_{layer}_{arch}", arch, math.prod(conv.output_shape()), spec.split_k, conv.dtype, channels)
    assert _compile(reduce, arch)[:4] == b"\x7fELF"
