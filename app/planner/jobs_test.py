"""The planner lowers with either engine to the same bytes, and identical
kernels are known by their IR.

Every job of the example sets (ResNet-50, BERT-base, MobileNetV2) on gfx942
and gfx1201: the C++ and the Python engine lower it to the same LLVM IR; the
ResNet-50 set on gfx942, compiled and linked by llvm23 from each engine's
IR, gives code objects of equal sha256 (what `rocke build --engine cpp`
and `--engine python` write).
"""

import json
import os

import pytest

from catalog.kernel import identity
from lower.flavors import ArchDomainError
from planner import jobs
from planner.problems import read
from toolchains.llvm.llvm import Toolchain

HERE = os.path.dirname(os.path.abspath(__file__))
SETS = ("resnet50", "bert_base", "mobilenet_v2")


def _jobs(name, archs, op=None):
    """The jobs of catalog `name` on `archs` (of its `op` problems only, where given): none refused."""
    with open(os.path.join(HERE, "..", "..", "catalog", name + ".json")) as f:
        problems, errors = read(json.load(f))
    planned, refused = jobs.plan([p for p in problems if op in (None, p.op)], archs)
    assert errors == [] and refused == [] and planned, name
    return planned


@pytest.mark.parametrize("name", SETS)
def test_both_engines_lower_every_job_of_the_sets_to_the_same_ir(name):
    for job in _jobs(name, ["gfx942", "gfx1201"]):
        cpp, py = jobs.lower(job, "llvm23", "cpp"), jobs.lower(job, "llvm23", "python")
        assert {c.engine for c in cpp} == {"cpp"} and {p.engine for p in py} == {"python"}
        assert [(c.ll, c.name, c.identity, c.path) for c in cpp] == [(p.ll, p.name, p.identity, p.path) for p in py], (
            name,
            job.problem.name,
            job.arch,
        )


def test_both_engines_give_resnet50_the_same_code_objects():
    toolchain = Toolchain.current()
    sums = {}
    for engine in jobs.ENGINES:
        sums[engine] = [
            row["sha256"] for job in _jobs("resnet50", ["gfx942"]) for row, _ in jobs.build(job, toolchain, engine)
        ]
    assert len(sums["cpp"]) >= 23 and sums["cpp"] == sums["python"]


def test_bert_has_two_kernels_one_per_layout_of_b():
    gemms = [job for job in _jobs("bert_base", ["gfx942"]) if job.problem.op == "gemm"]
    lowered = [kernel for job in gemms for kernel in jobs.lower(job, "llvm23")]
    layouts = [job.choice.spec.layout_b for job in gemms]
    kinds = {}
    for low, layout in zip(lowered, layouts):
        kinds.setdefault(layout, set()).add(low.identity)
    assert {k: len(v) for k, v in kinds.items()} == {"col": 1, "row": 1} and len({l.identity for l in lowered}) == 2


def test_identity_ignores_the_name_and_nothing_else():
    assert identity("k_a", "define void @k_a() ; k_a\n") == identity("k_b", "define void @k_b() ; k_b\n")
    assert identity("k_a", "define void @k_a() ; 1\n") != identity("k_a", "define void @k_a() ; 2\n")


def test_the_kernel_name_is_the_builders_in_both_engines():
    job = _jobs("bert_base", ["gfx942"])[0]
    by_engine = {engine: jobs.lower(job, "llvm23", engine) for engine in jobs.ENGINES}
    for engine, lowered in by_engine.items():
        for low in lowered:
            assert f"define amdgpu_kernel void @{low.name}(" in low.ll, (engine, low.name)
    assert [low.name for low in by_engine["cpp"]] == [low.name for low in by_engine["python"]]


def test_an_unknown_engine_is_named():
    job = _jobs("bert_base", ["gfx942"])[0]
    with pytest.raises(ValueError, match=r"expected engine to be one of cpp, python, got 'rust'"):
        jobs.lower(job, "llvm23", "rust")


def test_a_flavor_that_cannot_target_the_arch_is_an_arch_domain_error_not_llvms():
    # No LLVM runs: the lowering refuses first, and says so (KernelError is for what LLVM does).
    job = _jobs("bert_base", ["gfx1250"], "gemm")[0]  # the attention family has no gfx1250 tile
    with pytest.raises(ArchDomainError, match=r"gfx1250 is not known to llvm20; flavors that support it: llvm22"):
        jobs.lower(job, "llvm20")
