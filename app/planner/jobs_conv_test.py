"""The planner lowers the conv jobs of one example set with either engine to the same bytes.

ROCKE_SET names the set (a catalog/ file's stem: resnet50, mobilenet_v2).
Every distinct convolution of it on gfx942 and gfx1201: the C++ and the
Python engine lower it to the same LLVM IR; on gfx942, compiled and linked
by llvm23 from each engine's IR, they give code objects of equal sha256 (what `rocke build --engine cpp` and `--engine python` write). It
links the families of the set's rocke_catalog alone (`import
rocke_families`; jobs.lower takes the registry), so an edit to another
family does not re-run it; BERT-base's GEMMs are jobs_gemm_test's.
"""

import json
import os

import rocke_families
from planner import jobs
from planner.problems import CONV_OPS, read
from toolchains.llvm.llvm import Toolchain

HERE = os.path.dirname(os.path.abspath(__file__))
SET = os.environ["ROCKE_SET"]
FAMILIES = rocke_families.FAMILIES


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


def test_both_engines_lower_every_job_of_the_set_to_the_same_ir():
    for job in _jobs(SET, ["gfx942", "gfx1201"]):
        cpp, py = jobs.lower(job, "llvm23", FAMILIES, "cpp"), jobs.lower(job, "llvm23", FAMILIES, "python")
        assert {c.engine for c in cpp} == {"cpp"} and {p.engine for p in py} == {"python"}
        assert [(c.ll, c.name, c.identity, c.path) for c in cpp] == [(p.ll, p.name, p.identity, p.path) for p in py], (
            SET,
            job.problem.name,
            job.arch,
        )


def test_both_engines_give_the_set_the_same_code_objects():
    toolchain = Toolchain.current()
    planned = _jobs(SET, ["gfx942"])
    sums = {}
    for engine in jobs.ENGINES:
        sums[engine] = [row["sha256"] for job in planned for row, _ in jobs.build(job, toolchain, FAMILIES, engine)]
    assert len(sums["cpp"]) >= len(planned) and sums["cpp"] == sums["python"]
