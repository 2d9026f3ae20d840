"""archive_main: the catalog's index.json lists the errors `rocke build` lists
for the same problems (refusals, duplicate names), and its tar holds only the
kernels `rocke build` builds. Kernels are faked (no LLVM): the records come
from kernel_main itself, with jobs.build replaced by a fake row."""

import io
import json
import os
import tarfile

import pytest

from catalog import index
from planner import archive_main, jobs, kernel_main, problems

HERE = os.path.dirname(os.path.abspath(__file__))
ARCHS = ["gfx942", "gfx950"]
with open(os.path.join(HERE, "testdata", "refusals.json")) as f:
    DOC = json.load(f)


def _fake_build(job, toolchain, families):
    row = dict.fromkeys(index.COLUMNS)
    row.update(problem=job.problem.index, name=job.problem.name, op=job.problem.op, arch=job.arch, path=job.path)
    return [(row, f"code of {job.path}".encode())]


@pytest.fixture
def records(tmp_path, monkeypatch):
    """(record, code object) of every (entry, arch), as the macro's actions make them."""
    monkeypatch.setattr(jobs, "build", _fake_build)
    monkeypatch.setattr(kernel_main.Toolchain, "from_file", staticmethod(lambda path: None))
    out = []
    for i, obj in enumerate(DOC["problems"]):
        for arch in ARCHS:
            folder = tmp_path / f"{i}_{arch}"
            folder.mkdir()  # as Bazel does for the action's output folder
            argv = [
                "--entry",
                json.dumps(obj),
                "--index",
                str(i),
                "--arch",
                arch,
                "--toolchain",
                "unused.json",
                "--out",
                str(folder),
            ]
            assert kernel_main.main(argv) == 0
            for row in json.loads((folder / jobs.ROWS).read_text()):
                out.append((row, None if "refused" in row else (folder / row["path"]).read_bytes()))
    return out


def _rocke_build_errors():
    """index.json's errors as `rocke build` makes them (app/cli/build_cmd.py)."""
    good, errors = problems.read(DOC)
    planned, refused = jobs.plan(good, ARCHS)
    return [index.error(e.index, e.arch, str(e)) for e in [*errors, *refused]], {j.path for j in planned}


def test_the_errors_are_rocke_builds_and_name_each_refusal(records):
    tar, index_json = archive_main.archive(records, ARCHS)
    doc = json.loads(index_json)
    expected, _ = _rocke_build_errors()
    assert doc["errors"] == sorted(expected, key=lambda e: (e["problem"], e["arch"] or ""))
    # What each is, written from refusals.json: fp8 has no gfx942 tile; no
    # family computes an f32 weight gradient (on any arch: one error); entry 3 reuses
    # entry 0's name; entry 4's m is negative; no family computes a wgrad through a relu.
    assert [(e["problem"], e["arch"]) for e in doc["errors"]] == [
        (1, "gfx942"),
        (2, None),
        (3, None),
        (4, None),
        (5, None),
    ]
    assert doc["errors"][4]["message"].startswith("problems[5].bias: expected False")
    assert "problems[0] has it too" in doc["errors"][2]["message"]
    assert doc["errors"][1]["message"].endswith("no family computes an f32 weight gradient")


def test_the_tar_holds_the_kernels_rocke_build_builds_and_no_others(records):
    tar, index_json = archive_main.archive(records, ARCHS)
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        names = set(t.getnames())
    _, built = _rocke_build_errors()
    assert names == built | {"index.json", "index.csv"}
    assert built == {"gfx942/built_everywhere.hsaco", "gfx950/built_everywhere.hsaco", "gfx950/fp8_gfx950_only.hsaco"}
    assert [(r["problem"], r["arch"]) for r in json.loads(index_json)["kernels"]] == [
        (0, "gfx942"),
        (0, "gfx950"),
        (1, "gfx950"),
    ]


def test_the_order_of_the_records_does_not_change_a_byte(records):
    assert archive_main.archive(records, ARCHS) == archive_main.archive(records[::-1], ARCHS)


def test_duplicate_names_is_one_rule_for_both():
    # One (index, name) pair per arch, in any order, gives one error per later entry.
    errors = problems.duplicate_names([(2, "a"), (0, "a"), (2, "a"), (1, "b"), (3, "b")])
    assert [(e.index, e.field) for e in errors] == [(2, "name"), (3, "name")]
    assert (
        str(errors[0])
        == "problems[2].name: expected a name no other entry has, got 'a' (problems[0] has it too; give one a \"name\")"
    )
