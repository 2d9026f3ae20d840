"""conv_fwd_split_k_reduce at full size: the reduce of every split layer of
conv_igemm_fwd's full-size test (networks.SPLIT_AT_BATCH_1 at batch 1, split
as the planner splits them) builds, lowers and compiles (never run) with the
flavor under test, with no spill and within each arch's registers, on every
arch of the tile table the flavor knows."""

import dataclasses

import pytest

from conv import networks
from conv.compile_checks import code_object, known
from conv.igemm_tiles import TILES, spec_for
from conv.split_k import select_split_k_fwd
from conv.reduce_spec import ReduceSpec
from conv.split_k_reduce import build
from family.family import Case


@pytest.mark.parametrize("arch", known(TILES))
@pytest.mark.parametrize("layer", networks.SPLIT_AT_BATCH_1)
def test_reduce_of_a_split_layer_compiles_without_spills(layer, arch):
    conv = dataclasses.replace(networks.RESNET50[layer], n=1)
    split = select_split_k_fwd(spec_for(arch, conv), arch)
    assert split > 1, layer
    code_object(build(Case(f"reduce_{layer}_{arch}", arch, ReduceSpec(conv, split))), arch)
