"""The planner lowers ResNet-50's two pools (as the contract's problems fields spell them) with either engine to
the same bytes, and a pool's kernel names its problem. It links the pool family alone."""

from planner import jobs
from planner.problems import read
from pool import pool

FAMILIES = {pool.__name__: pool.FAMILY}
RESNET50_POOLS = [
    {"op": "pool", "name": "maxpool", "n": 1, "c": 64, "spatial": [112, 112], "kind": "max", "window": [3, 3],
     "stride": [2, 2], "pad": [1, 1]},
    {"op": "pool", "name": "avgpool", "n": 1, "c": 2048, "spatial": [7, 7], "kind": "avg", "global": True},
]  # fmt: skip


def test_both_engines_lower_resnet50s_pools_to_the_same_ir():
    problems, errors = read({"problems": RESNET50_POOLS})
    planned, refused = jobs.plan(problems, ["gfx942", "gfx1201"])
    assert errors == [] and refused == [] and len(planned) == 4
    for job in planned:
        cpp, py = jobs.lower(job, "llvm23", FAMILIES, "cpp"), jobs.lower(job, "llvm23", FAMILIES, "python")
        assert [(c.ll, c.name) for c in cpp] == [(p.ll, p.name) for p in py], (job.problem.name, job.arch)
        assert cpp[0].name.startswith(f"pool_{job.problem.name}")
        assert "load <8 x half>" in cpp[0].ll and "store <8 x half>" in cpp[0].ll
