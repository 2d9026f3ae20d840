"""//app/planner:refusals, a rocke_catalog with entries refused in each way,
builds (a refusal does not fail its action), and its index.json lists the
errors `rocke build` lists for the same problems file; its tar holds only the
kernels that were built."""

import json
import os
import tarfile

from catalog import index
from planner import jobs, problems

HERE = os.path.dirname(os.path.abspath(__file__))
ARCHS = ["gfx942", "gfx950"]  # BUILD.bazel's
with open(os.path.join(HERE, "testdata", "refusals.json")) as f:
    DOC = json.load(f)
with open(os.path.join(HERE, "refusals.index.json")) as f:
    INDEX = json.load(f)
with tarfile.open(os.path.join(HERE, "refusals.tar")) as tar:
    NAMES = set(tar.getnames())


def test_the_errors_are_those_rocke_build_lists():
    good, errors = problems.read(DOC)
    _, refused = jobs.plan(good, ARCHS)
    expected = sorted(
        (index.error(e.index, e.arch, str(e)) for e in [*errors, *refused]),
        key=lambda e: (e["problem"], e["arch"] or ""),
    )
    assert INDEX["errors"] == expected
    # Written from refusals.json: no fp8 tile on gfx942; no family computes an f32 wgrad;
    # entry 3 reuses entry 0's name; entry 4's m is negative; no family computes a wgrad through a relu.
    errors = [(1, "gfx942"), (2, None), (3, None), (4, None), (5, None)]
    assert [(e["problem"], e["arch"]) for e in INDEX["errors"]] == errors
    assert INDEX["errors"][1]["message"].endswith("no family computes an f32 weight gradient")
    assert INDEX["errors"][4]["message"].startswith("problems[5].bias: expected False")


def test_only_the_built_kernels_are_in_the_catalog():
    assert [(r["problem"], r["arch"]) for r in INDEX["kernels"]] == [(0, "gfx942"), (0, "gfx950"), (1, "gfx950")]
    assert NAMES == {
        "index.json",
        "index.csv",
        "gfx942/built_everywhere.hsaco",
        "gfx950/built_everywhere.hsaco",
        "gfx950/fp8_gfx950_only.hsaco",
    }
