"""//app/catalog:resnet50 as Bazel built it: a tar laid out as `rocke build --out`
lays out a folder, with nothing of the build machine in it (no absolute path,
owner or date), and an index row per kernel whose sha256 is its code object's:
one per problem, and a second (its reduce) for each layer the planner splits."""

import hashlib
import json
import os
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _read(tar, member):
    """A member's bytes; AssertionError for a member that is not a file."""
    data = tar.extractfile(member)
    assert data is not None, f"{member.name} is not a file"
    return data.read()


with open(os.environ["ROCKE_PROBLEMS"]) as f:
    PROBLEMS = json.load(f)["problems"]
with tarfile.open(os.path.join(HERE, "resnet50.tar")) as tar:
    MEMBERS = tar.getmembers()
    FILES = {m.name: _read(tar, m) for m in MEMBERS}
with open(os.path.join(HERE, "resnet50.index.json"), "rb") as index_file:
    INDEX = index_file.read()


ROWS = json.loads(INDEX)["kernels"]
SPLIT = {r["name"] for r in ROWS if r["family"] == "conv_fwd_split_k_reduce"}


def test_the_tar_holds_the_index_and_each_problems_code_objects_and_nothing_else():
    expected = (
        {"index.json", "index.csv"}
        | {f"gfx942/{p['name']}.hsaco" for p in PROBLEMS}
        | {f"gfx942/{name}.reduce.hsaco" for name in SPLIT}
    )
    assert set(FILES) == expected and len(PROBLEMS) == 56
    assert FILES["index.json"] == INDEX
    # Batch 1 on 304 CUs: few layers fill the machine, so most split; a 64-long reduction (2 k steps) is too short to.
    assert {"res5a_branch2b", "res4a_branch2b"} <= SPLIT and "res2a_branch2a" not in SPLIT


def test_members_are_sorted_and_carry_no_owner_date_or_odd_mode():
    assert [m.name for m in MEMBERS] == sorted(FILES)
    for m in MEMBERS:
        assert (m.mtime, m.uid, m.gid, m.uname, m.gname, m.mode) == (0, 0, 0, "", "", 0o644), m.name


def test_every_row_is_its_problems_kernel_with_the_code_objects_sha256():
    rows = ROWS
    main = [r for r in rows if r["family"] != "conv_fwd_split_k_reduce"]
    assert [(r["problem"], r["name"], r["arch"], r["flavor"]) for r in main] == [
        (i, p["name"], "gfx942", "llvm23") for i, p in enumerate(PROBLEMS)
    ]
    # A split layer's reduce row follows its conv's.
    for before, after in zip(rows, rows[1:]):
        if after["family"] == "conv_fwd_split_k_reduce":
            assert (before["family"], before["problem"]) == (
                "conv_igemm_fwd",
                after["problem"],
            ) and "split-K" in before["config"]
    for r in rows:
        assert hashlib.sha256(FILES[r["path"]]).hexdigest() == r["sha256"]
        assert r["kernel"].encode() in FILES[r["path"]]
    assert len(FILES["index.csv"].splitlines()) == 1 + len(rows)


def test_no_output_names_a_path_of_the_build_machine():
    for name, data in FILES.items():
        for leak in (b"/work/", b"/var/cache", b"/tmp/", b"execroot", b"sandbox", b"bazel-out", os.getcwd().encode()):
            assert leak not in data, f"{name} holds {leak!r}"
