"""The planner lowers BERT-base's GEMMs with either engine to the same bytes,
and identical kernels are known by their IR; lowering a job names an unknown
engine, a flavor that cannot target the arch, and a family the registry it
is given does not hold.

It links the gemm family alone (jobs.lower takes the registry), so an edit
to a conv family does not re-run it.
"""

import json
import os

import pytest

from catalog.kernel import identity
from gemm import gemm
from lower.flavors import ArchDomainError
from planner import jobs
from planner.problems import read

HERE = os.path.dirname(os.path.abspath(__file__))
FAMILIES = {gemm.__name__: gemm.FAMILY}


def _jobs(name, archs):
    """The jobs of catalog `name`'s gemm problems on `archs`: none refused."""
    with open(os.path.join(HERE, "..", "..", "catalog", name + ".json")) as f:
        problems, errors = read(json.load(f))
    planned, refused = jobs.plan([p for p in problems if p.op == "gemm"], archs)
    assert errors == [] and refused == [] and planned, name
    return planned


def test_both_engines_lower_every_job_of_bert_to_the_same_ir():
    for job in _jobs("bert_base", ["gfx942", "gfx1201"]):
        cpp, py = jobs.lower(job, "llvm23", FAMILIES, "cpp"), jobs.lower(job, "llvm23", FAMILIES, "python")
        assert {c.engine for c in cpp} == {"cpp"} and {p.engine for p in py} == {"python"}
        assert [(c.ll, c.name, c.identity, c.path) for c in cpp] == [(p.ll, p.name, p.identity, p.path) for p in py], (
            job.problem.name,
            job.arch,
        )


def test_berts_gemms_are_one_kernel_per_epilogue():
    """The QKV projection (bias), the FFN's first GEMM (bias, GELU) and the two projections with a residual add:
    m, n and k are the kernel's arguments, so the two residual projections share one kernel."""
    gemms = _jobs("bert_base", ["gfx942"])
    lowered = [kernel for job in gemms for kernel in jobs.lower(job, "llvm23", FAMILIES)]
    kinds = {}
    for job, low in zip(gemms, lowered):
        spec = job.choice.spec
        kinds.setdefault((spec.bias, spec.activation, spec.residual, spec.scale), set()).add(low.identity)
    assert len(gemms) == 4 and len(kinds) == 3 and all(len(v) == 1 for v in kinds.values())
    assert len({low.identity for low in lowered}) == 3


def test_identity_ignores_the_name_and_nothing_else():
    assert identity("k_a", "define void @k_a() ; k_a\n") == identity("k_b", "define void @k_b() ; k_b\n")
    assert identity("k_a", "define void @k_a() ; 1\n") != identity("k_a", "define void @k_a() ; 2\n")


def test_the_kernel_name_is_the_builders_in_both_engines():
    job = _jobs("bert_base", ["gfx942"])[0]
    by_engine = {engine: jobs.lower(job, "llvm23", FAMILIES, engine) for engine in jobs.ENGINES}
    for engine, lowered in by_engine.items():
        for low in lowered:
            assert f"define amdgpu_kernel void @{low.name}(" in low.ll, (engine, low.name)
    assert [low.name for low in by_engine["cpp"]] == [low.name for low in by_engine["python"]]


def test_an_unknown_engine_is_named():
    job = _jobs("bert_base", ["gfx942"])[0]
    with pytest.raises(ValueError, match=r"expected engine to be one of cpp, python, got 'rust'"):
        jobs.lower(job, "llvm23", FAMILIES, "rust")


def test_a_family_missing_from_the_registry_is_named_with_those_it_holds():
    job = _jobs("bert_base", ["gfx942"])[0]
    others = {"conv.img2col": None}
    with pytest.raises(
        jobs.RegistryError, match=r"expected gemm\.gemm \(family gemm\) in the family registry, got only conv\.img2col"
    ):
        jobs.lower(job, "llvm23", others)


def test_a_flavor_that_cannot_target_the_arch_is_an_arch_domain_error_not_llvms():
    # No LLVM runs: the lowering refuses first, and says so (KernelError is for what LLVM does).
    job = _jobs("bert_base", ["gfx1250"])[0]
    with pytest.raises(ArchDomainError, match=r"gfx1250 is not known to llvm20; flavors that support it: llvm22"):
        jobs.lower(job, "llvm20", FAMILIES)
