"""`rocke build` as a user runs it, on a problems file with an entry for
every family and bad entries among them: the whole program (its registry
of every family), so an edit to any family re-runs it. It builds the good
entries, names the bad and exits 1; every row names its code object with
its sha256 and figures; a second build gives the same bytes under another
hash seed and --jobs; a rebuild removes the code objects the problems file does not list;
--explain says why for each kernel; every command's --help shows its
examples. The command's other behaviours are build_cmd_test's."""

import hashlib
import json
import os
import subprocess
import sys

import pytest

from app.cli import rocke


# Small shapes (fast to compile), one per family, and bad entries between them.
PROBLEMS = [
    {"op": "conv_fwd", "name": "pointwise", "n": 1, "c": 16, "k": 32, "spatial": [8, 8], "filter": [1, 1]},
    {
        "op": "conv_fwd",
        "name": "bad_stride",
        "n": 1,
        "c": 16,
        "k": 32,
        "spatial": [8, 8],
        "filter": [3, 3],
        "stride": [0, 1],
    },
    {
        "op": "conv_fwd",
        "name": "depthwise",
        "n": 1,
        "c": 16,
        "k": 16,
        "spatial": [8, 8],
        "filter": [3, 3],
        "pad": [1, 1],
        "groups": 16,
    },
    {"op": "conv_dgrad", "n": 1, "c": 16, "k": 16, "spatial": [8, 8], "filter": [3, 3]},
    {"op": "gemm", "m": 64, "n": 64, "k": 64, "dtype": "f16", "layout_b": "col"},
    {
        "op": "conv_fwd",
        "name": "pointwise_f32",
        "n": 1,
        "c": 16,
        "k": 32,
        "spatial": [8, 8],
        "filter": [1, 1],
        "dtype": "f32",
    },
    # The layer: batch 256 of 224x224x64 f32, a 3.3 GB input (i32 offsets reach 2**31 - 1 bytes).
    {
        "op": "conv_fwd",
        "name": "too_big",
        "n": 256,
        "c": 64,
        "k": 64,
        "spatial": [224, 224],
        "filter": [3, 3],
        "pad": [1, 1],
        "dtype": "f32",
    },
    {
        "op": "conv_wgrad",
        "name": "wgrad_3x3",
        "n": 2,
        "c": 16,
        "k": 32,
        "spatial": [8, 8],
        "filter": [3, 3],
        "pad": [1, 1],
    },
]


TOO_BIG = 4 * 224 * 224 * 64  # bytes per sample of its input (and output)


# problem -> the families of its kernels, in the order they run.
GOOD = {
    0: ("conv_igemm_fwd",),
    2: ("conv_direct_fwd",),
    3: ("conv_igemm_dgrad",),
    4: ("gemm",),
    5: ("conv_img2col",),
    7: ("conv_igemm_wgrad", "conv_fwd_split_k_reduce"),  # two-stage: the split kernel, then the reduce of dw
}
KERNELS = sum(len(families) for families in GOOD.values())


ARCHS = ["gfx942", "gfx1201"]


@pytest.fixture(scope="module")
def problems(tmp_path_factory):
    path = tmp_path_factory.mktemp("in") / "problems.json"
    path.write_text(json.dumps({"problems": PROBLEMS}))
    return str(path)


def _build(problems, out, *flags):
    return rocke.main(["build", "--problems", problems, "--arch", ",".join(ARCHS), "--out", str(out), *flags])


@pytest.fixture(scope="module")
def built(problems, tmp_path_factory):
    out = tmp_path_factory.mktemp("catalog")
    status = _build(problems, out, "--jobs", "2")
    return status, out


def test_bad_entries_are_named_the_others_build_and_the_status_is_1(built, capsys):
    status, out = built
    assert status == 1
    doc = json.loads((out / "index.json").read_text())
    assert sorted((r["problem"], r["arch"], r["family"]) for r in doc["kernels"]) == sorted(
        (p, a, f) for p, families in GOOD.items() for f in families for a in ARCHS
    )
    assert doc["errors"] == [
        {"problem": 1, "arch": None, "message": "problems[1].stride: expected ints >= 1, got (0, 1)"},
        {
            "problem": 6,
            "arch": None,
            "message": (
                f"problems[6]: expected every tensor at most {2**31 - 1} bytes (2**31 - 1: the kernels' offsets are 32-bit), "
                f"got the input (256, 224, 224, 64) of {256 * TOO_BIG} bytes; use a smaller batch (n at most {(2**31 - 1) // TOO_BIG}), "
                f"or split the batch into launches of at most {(2**31 - 1) // TOO_BIG}"
            ),
        },
    ]


def test_every_row_names_a_code_object_with_its_sha256_and_figures(built):
    _, out = built
    rows = json.loads((out / "index.json").read_text())["kernels"]
    for row in rows:
        data = (out / row["path"]).read_bytes()
        assert data[:4] == b"\x7fELF" and hashlib.sha256(data).hexdigest() == row["sha256"]
        assert row["kernel"].encode() in data
        assert row["flavor"] == "llvm23" and row["vgpr"] > 0 and row["occupancy"] >= 1
        # Waves per workgroup: conv's 256 lanes and gemm's tile (2x2 waves of 64
        # on CDNA, 2x4 of 32 on RDNA4) are 4 waves on gfx942 and 8 on gfx1201.
        assert row["waves"] == {"gfx942": 4, "gfx1201": 8}[row["arch"]], row
    csv_lines = (out / "index.csv").read_text().splitlines()
    assert len(csv_lines) == 1 + len(rows)
    assert set(json.loads((out / "timings.json").read_text())) == {
        f"{r['problem']}/{r['arch']}/{r['family']}" for r in rows
    }


def test_a_second_build_gives_the_same_bytes_whatever_the_workers_and_hash_seed(built, problems, tmp_path):
    _, first = built
    env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=os.pathsep.join(sys.path))
    code = "import sys; from app.cli import rocke; sys.exit(rocke.main(sys.argv[1:]))"
    argv = ["build", "--problems", problems, "--arch", ",".join(ARCHS), "--out", str(tmp_path), "--jobs", "1"]
    proc = subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True, timeout=600)
    assert proc.returncode == 1, proc.stderr.decode()

    def files(folder):
        return {
            os.path.relpath(os.path.join(d, f), folder): open(os.path.join(d, f), "rb").read()
            for d, _, names in os.walk(folder)
            for f in names
            if f != "timings.json"
        }

    assert files(tmp_path) == files(first) and len(files(first)) == 2 + KERNELS * len(ARCHS)


def test_a_rebuild_with_fewer_problems_removes_the_code_objects_no_longer_listed(problems, tmp_path):
    assert _build(problems, tmp_path, "--jobs", "1") == 1
    stranger = tmp_path / "gfx942" / "mine.hsaco"
    stranger.write_bytes(b"not the catalog's")
    fewer = tmp_path / "fewer.json"
    fewer.write_text(json.dumps({"problems": PROBLEMS[:1]}))
    assert rocke.main(["build", "--problems", str(fewer), "--arch", "gfx942", "--out", str(tmp_path)]) == 0
    kept = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.hsaco"))
    assert kept == ["gfx942/mine.hsaco", "gfx942/pointwise.hsaco"]  # the other kernels are gone, the stranger stays


def test_explain_prints_why_for_each_kernel(problems, tmp_path, capsys):
    _build(problems, tmp_path, "--explain", "--jobs", "1")
    out = capsys.readouterr().out
    assert (
        "problems[2] depthwise on gfx942: conv_direct_fwd, 1 output per lane, 256 lanes\n"
        "    conv_igemm_fwd: passed over, k / groups = 1: a group's filters would fill 1 of a matrix op's 16 columns\n"
        "    conv_img2col: passed over, groups = 16: the im2col GEMM needs groups == 1\n"
    ) in out
    assert "problems[4] gemm_64x64x64_f16_rc_f16 on gfx1201: gemm, mma 16x16x16, block 128x128x32, waves 2x4\n" in out
    # wgrad: 32 x 144 weights in 3 blocks, a reduction of 128 = 4 k steps: split twice, two-stage, then its reduce.
    assert (
        "problems[7] wgrad_3x3 on gfx942: conv_igemm_wgrad, mma 16x16x16, block 64x64x32, waves 2x2, split 2 two_stage\n"
        "    conv_igemm_wgrad: the one wgrad family; matrix cores: a 32x144x128 implicit GEMM per group; its tile for gfx942 (conv.wgrad_spec.TILES): "
        "mma 16x16x16, block 64x64x32, waves 2x2, split 2 two_stage\n"
    ) in out
    assert "conv_fwd_split_k_reduce: the sum of conv_igemm_wgrad's 2 partial sums of dw, converted to f16" in out


@pytest.mark.parametrize("command", list(rocke.COMMANDS))
def test_every_commands_help_shows_its_examples_one_per_line(command, capsys):
    with pytest.raises(SystemExit) as exit:
        rocke.main([command, "--help"])
    assert exit.value.code == 0
    out = capsys.readouterr().out
    examples = [
        line.strip() for line in rocke.COMMANDS[command].__doc__.splitlines() if line.strip().startswith("rocke ")
    ]
    assert examples, f"rocke {command}'s help has no examples"
    for example in examples:
        assert f"\n    {example}\n" in out
