"""The planner lowers the conv jobs with either engine to the same bytes.

Every distinct convolution of the conv example sets (ResNet-50, MobileNetV2)
on gfx942 and gfx1201: the C++ and the Python engine lower it to the same LLVM IR; the
ResNet-50 set on gfx942, compiled and linked by llvm23 from each engine's
IR, gives code objects of equal sha256 (what `rocke build --engine cpp`
and `--engine python` write). It links the conv families alone (jobs.lower
takes the registry), so an edit to gemm does not re-run it; BERT-base's
GEMMs are jobs_gemm_test's.
"""

import json
import os

import pytest

from conv import direct_fwd, igemm_dgrad, igemm_fwd, igemm_wgrad, img2col, split_k_reduce
from planner import jobs
from planner.problems import CONV_OPS, read
from toolchains.llvm.llvm import Toolchain

HERE = os.path.dirname(os.path.abspath(__file__))
SETS = ("resnet50", "mobilenet_v2")
FAMILIES = {m.__name__: m.FAMILY for m in (direct_fwd, igemm_dgrad, igemm_fwd, igemm_wgrad, img2col, split_k_reduce)}


def _jobs(name, archs):
    """The jobs of catalog `name`'s convolutions on `archs`, each distinct problem once: none refused."""
    with open(os.path.join(HERE, "..", "..", "catalog", name + ".json")) as f:
        problems, errors = read(json.load(f))
    distinct = {}
    for p in problems:
        if p.op in CONV_OPS:
            distinct.setdefault((p.op, p.spec), p)
    planned, refused = jobs.plan(list(distinct.values()), archs)
    assert errors == [] and refused == [] and planned, name
    return planned


@pytest.mark.parametrize("name", SETS)
def test_both_engines_lower_every_job_of_the_sets_to_the_same_ir(name):
    for job in _jobs(name, ["gfx942", "gfx1201"]):
        cpp, py = jobs.lower(job, "llvm23", FAMILIES, "cpp"), jobs.lower(job, "llvm23", FAMILIES, "python")
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
            row["sha256"]
            for job in _jobs("resnet50", ["gfx942"])
            for row, _ in jobs.build(job, toolchain, FAMILIES, engine)
        ]
    assert len(sums["cpp"]) >= 24 and sums["cpp"] == sums["python"]
