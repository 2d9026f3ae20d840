"""`rocke build`'s behaviours, on the families each needs (the gemm family,
and conv_igemm_fwd with its split-K reduce): identical kernels are built
once; a split layer is its convolution then its reduce; two kernels of one
problem, arch and family fail the build before it writes; each kernel has
its own build time, which leaves out its wait for the LLVM other worker
threads hold (the last line shows that wait); progress counts the kernels
built, on a terminal and off one; a killed build, a symlink out of --out
and an index that cannot be replaced; one-line refusals of bad files and
usage. It links those families alone (the command takes the registry,
command_line.py), so an edit to another family does not re-run it; the
whole program on every family is build_families_test's."""

import hashlib
import io
import json
import os
import re
import subprocess
import sys
import threading
import time

import pytest

from toolchains.llvm import capi
from app.cli import build_cmd, command_line
from app.cli.inputs import toolchain_for
from catalog import kernel
from planner import jobs
from conv import igemm_fwd, split_k_reduce
from gemm import gemm

COMMANDS = {"build": build_cmd}
FAMILIES = command_line.registry(gemm, igemm_fwd, split_k_reduce)


def main(argv):
    """`rocke ARGV` with the build command and FAMILIES."""
    return command_line.main(argv, COMMANDS, FAMILIES)


def test_an_index_file_that_cannot_be_replaced_is_one_line_with_status_2(tmp_path, capsys):
    (tmp_path / "p.json").write_text(json.dumps({"problems": SAME_KERNEL[:1]}))
    (tmp_path / "o" / "index.json").mkdir(parents=True)  # a folder where the old index would be removed
    argv = ["build", "--problems", str(tmp_path / "p.json"), "--arch", "gfx942", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith(f"rocke build: cannot write {tmp_path / 'o' / 'index.json'}: Is a directory; "), err


# A build that dies by SIGKILL as it renames its code object qkv.hsaco into
# place: the temporary file it wrote stays, as a killed process leaves it.
KILLED = """
import os, signal, sys
from app.cli import build_cmd, command_line
from gemm import gemm
rename = os.replace
def replace(src, dst, *args, **kwargs):
    if dst.endswith(os.sep + "qkv.hsaco"):
        os.kill(os.getpid(), signal.SIGKILL)
    return rename(src, dst, *args, **kwargs)
os.replace = replace
sys.exit(command_line.main(sys.argv[1:], {"build": build_cmd}, command_line.registry(gemm)))
"""


def _consistent(out):
    """Whether every code object index.json names is there with its sha256 (True without an index.json)."""
    if not (out / "index.json").exists():
        return True
    rows = json.loads((out / "index.json").read_text())["kernels"]
    files = [(out / r["path"], r["sha256"]) for r in rows]
    return all(path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == sha256 for path, sha256 in files)


def test_a_build_killed_mid_write_leaves_no_index_that_disagrees_and_the_next_cleans_up(tmp_path):
    out = tmp_path / "o"

    def problems(name, entries):
        (tmp_path / name).write_text(json.dumps({"problems": entries}))
        return ["build", "--problems", str(tmp_path / name), "--arch", "gfx942", "--out", str(out), "--jobs", "1"]

    assert main(problems("first.json", SAME_KERNEL[:2])) == 0  # gfx942/context.hsaco and qkv.hsaco
    # The same names in bf16 (other code objects) and a new one: context and
    # extra are written, then the build dies renaming qkv into place.
    bf16 = [dict(p, dtype="bf16") for p in SAME_KERNEL[:2]] + [dict(SAME_KERNEL[3], name="extra")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    argv = problems("second.json", bf16)
    killed = subprocess.run([sys.executable, "-c", KILLED, *argv], env=env, capture_output=True, timeout=600)
    assert killed.returncode == -9, killed.stderr.decode()
    assert any(p.name.startswith(".rocke-") for p in (out / "gfx942").iterdir()), "the kill left no temporary file"
    assert _consistent(out), "index.json names a code object whose sha256 is not its own"
    # The next build removes the leftovers and what the killed build wrote
    # that it does not list (extra, context), and its index is whole.
    assert main(problems("third.json", SAME_KERNEL[:1])) == 0
    left = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    assert left == ["gfx942", "gfx942/qkv.hsaco", "index.csv", "index.json", "timings.json"]
    assert _consistent(out)


def test_a_symlink_inside_out_that_leads_outside_is_refused_before_anything_is_written(tmp_path, capsys):
    tmp_path = tmp_path.resolve()
    (tmp_path / "p.json").write_text(json.dumps({"problems": SAME_KERNEL[:1]}))
    out, elsewhere = tmp_path / "o", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "gfx942").symlink_to(elsewhere)
    assert main(["build", "--problems", str(tmp_path / "p.json"), "--arch", "gfx942", "--out", str(out)]) == 2
    got = f"it is a symlink to {elsewhere}, outside --out {out}"
    fix = "remove the link or choose another --out"
    assert capsys.readouterr().err.splitlines() == [f"rocke build: cannot write into {out / 'gfx942'}: {got}; {fix}"]
    assert list(elsewhere.iterdir()) == [] and sorted(p.name for p in out.iterdir()) == ["gfx942"]


# Three GEMMs that differ in m, n and k (run-time values: one kernel) and a
# fourth with B row-major (another kernel), as in BERT.
SAME_KERNEL = [
    {"op": "gemm", "name": "qkv", "m": 128, "n": 2304, "k": 768, "dtype": "f16", "layout_b": "col"},
    {"op": "gemm", "name": "context", "m": 128, "n": 64, "k": 128, "dtype": "f16"},
    {"op": "gemm", "name": "ffn_up", "m": 128, "n": 3072, "k": 768, "dtype": "f16", "layout_b": "col"},
    {"op": "gemm", "name": "scores", "m": 128, "n": 128, "k": 64, "dtype": "f16", "layout_b": "col"},
]


# How long the test makes each compile and link: longer than any lowering
# takes here (the Python engine's, on a loaded machine, about 1.5 s), so a
# kernel's time shows whether it was compiled.
COMPILE_HOLD = 4.0


@pytest.mark.parametrize("engine", ["cpp", "python"])
def test_identical_kernels_are_built_once_and_their_rows_share_the_code_object(tmp_path, capsys, monkeypatch, engine):
    build = kernel.build
    monkeypatch.setattr(kernel, "build", lambda *a: (time.sleep(COMPILE_HOLD), build(*a))[1])
    (tmp_path / "p.json").write_text(json.dumps({"problems": SAME_KERNEL}))
    out = tmp_path / "o"
    argv = [
        "build",
        "--problems",
        str(tmp_path / "p.json"),
        "--arch",
        "gfx942",
        "--out",
        str(out),
        "--jobs",
        "2",
        "--engine",
        engine,
    ]
    assert main(argv) == 0
    rows = json.loads((out / "index.json").read_text())["kernels"]
    assert [(r["problem"], r["name"], r["path"], r["kernel"]) for r in rows] == [
        (0, "qkv", "gfx942/qkv.hsaco", "gemm_qkv_gfx942"),
        (1, "context", "gfx942/context.hsaco", "gemm_context_gfx942"),
        (2, "ffn_up", "gfx942/qkv.hsaco", "gemm_qkv_gfx942"),
        (3, "scores", "gfx942/qkv.hsaco", "gemm_qkv_gfx942"),
    ]
    assert len({r["sha256"] for r in rows}) == 2 and rows[0]["sha256"] == rows[2]["sha256"] == rows[3]["sha256"]
    assert {r["vgpr"] for r in rows[2:]} == {rows[0]["vgpr"]}
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.hsaco")) == ["gfx942/context.hsaco", "gfx942/qkv.hsaco"]
    # Every kernel has its time; one another's code object serves was only
    # lowered (milliseconds), not compiled and linked as the one it reuses.
    timings = json.loads((out / "timings.json").read_text())
    assert sorted(timings) == ["0/gfx942/gemm", "1/gfx942/gemm", "2/gfx942/gemm", "3/gfx942/gemm"]
    assert max(timings["2/gfx942/gemm"], timings["3/gfx942/gemm"]) < COMPILE_HOLD <= timings["0/gfx942/gemm"], timings
    text = capsys.readouterr().out
    assert "4 kernels (2 distinct built), 0 errors" in text
    table = {line.split()[1]: line for line in text.splitlines()[1:5]}
    assert table["ffn_up"].endswith("= #0") and table["scores"].endswith("= #0") and not table["context"].endswith("#0")


# GEMMs the kernel's i32 cannot address, and one it can.
TOO_LARGE = [
    {"op": "gemm", "name": "m_past_int64", "m": 2**63, "n": 64, "k": 64, "dtype": "f16"},
    {"op": "gemm", "name": "k_past_i32", "m": 64, "n": 64, "k": 2**31, "dtype": "f16"},
    {"op": "gemm", "name": "a_past_2gib", "m": 2**20, "n": 64, "k": 2**10, "dtype": "f16"},
    {"op": "gemm", "name": "fits", "m": 64, "n": 64, "k": 64, "dtype": "f16"},
]


def test_a_gemm_its_offsets_cannot_address_is_refused_alike_by_both_engines_naming_the_field(tmp_path, capsys):
    (tmp_path / "p.json").write_text(json.dumps({"problems": TOO_LARGE}))
    errors = {}
    for engine in ("cpp", "python"):
        out = tmp_path / engine
        argv = ["build", "--problems", str(tmp_path / "p.json"), "--arch", "gfx942", "--out", str(out)]
        assert main([*argv, "--engine", engine]) == 1
        doc = json.loads((out / "index.json").read_text())
        assert [r["name"] for r in doc["kernels"]] == ["fits"]
        errors[engine] = doc["errors"]
    assert errors["cpp"] == errors["python"]
    int32 = "expected a positive int at most 2147483647 (2**31 - 1: the kernel takes m, n and k as i32)"
    assert [e["message"] for e in errors["cpp"]] == [
        f"problems[0].m: {int32}, got {2**63}",
        f"problems[1].k: {int32}, got {2**31}",
        "problems[2].m: expected every tensor at most 2147483647 bytes (2**31 - 1: the kernel's offsets are 32-bit), "
        "got A (1048576, 1024) of 2147483648 bytes; use m at most 1048575",
    ]


# 784 pixels x 32 filters: 7 workgroups on gfx942's 304 CUs, so the planner splits the 288-long reduction.
SPLIT = {
    "op": "conv_fwd",
    "name": "late",
    "n": 1,
    "c": 32,
    "k": 32,
    "spatial": [28, 28],
    "filter": [3, 3],
    "pad": [1, 1],
    "bias": True,
    "activation": "relu",
}


def test_a_split_layer_builds_its_conv_then_its_reduce_each_with_a_row(tmp_path, capsys):
    path = tmp_path / "split.json"
    path.write_text(json.dumps({"problems": [SPLIT]}))
    assert (
        main(
            [
                "build",
                "--problems",
                str(path),
                "--arch",
                "gfx942",
                "--out",
                str(tmp_path / "o"),
                "--explain",
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    rows = json.loads((tmp_path / "o" / "index.json").read_text())["kernels"]
    assert [(r["problem"], r["family"], r["path"], r["kernel"]) for r in rows] == [
        (0, "conv_igemm_fwd", "gfx942/late.hsaco", "conv_igemm_fwd_late_gfx942"),
        (0, "conv_fwd_split_k_reduce", "gfx942/late.reduce.hsaco", "conv_fwd_split_k_reduce_late_gfx942_reduce"),
    ]
    for row in rows:
        data = (tmp_path / "o" / row["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == row["sha256"] and row["kernel"].encode() in data
    assert rows[0]["config"].endswith(", split-K 4") and rows[1]["config"] == "4 f32 slices, 4 elements per lane"
    out = capsys.readouterr().out
    assert "\n  then reduce: conv_fwd_split_k_reduce, 4 f32 slices, 4 elements per lane\n" in out
    table = [line for line in out.splitlines() if line.startswith("0 ")]
    assert len(table) == 2 and "conv_igemm_fwd" in table[0] and "conv_fwd_split_k_reduce" in table[1]
    # Each kernel its own build time, in the table as in timings.json: the
    # reduce (a few adds per lane) builds faster than the 128x64 tile.
    timings = json.loads((tmp_path / "o" / "timings.json").read_text())
    assert sorted(timings) == ["0/gfx942/conv_fwd_split_k_reduce", "0/gfx942/conv_igemm_fwd"]
    conv, reduce = timings["0/gfx942/conv_igemm_fwd"], timings["0/gfx942/conv_fwd_split_k_reduce"]
    assert 0 < reduce < conv
    shown = [float(line.split()[-1]) for line in table]  # to 0.01 s; the file to 0.001 s
    assert abs(shown[0] - conv) <= 0.006 and abs(shown[1] - reduce) <= 0.006, (shown, timings)


def test_two_kernels_of_one_problem_arch_and_family_fail_the_build_before_it_writes(tmp_path, monkeypatch, capsys):
    # A planner whose split layer ran its convolution twice: both kernels'
    # times would share the key PROBLEM/ARCH/FAMILY.
    kernels = jobs.Job.kernels
    monkeypatch.setattr(jobs.Job, "kernels", lambda job: kernels(job)[:1] * 2)
    (tmp_path / "p.json").write_text(json.dumps({"problems": [SPLIT]}))
    out = tmp_path / "o"
    assert (
        main(["build", "--problems", str(tmp_path / "p.json"), "--arch", "gfx942", "--out", str(out), "--jobs", "1"])
        == 2
    )
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(
        "rocke build: expected the kernels of a problem on an arch to be of distinct families, got two conv_igemm_fwd kernels for problems[0] (late) on gfx942;"
    ), err
    assert not out.exists()


# How long the test holds the in-process LLVM while worker threads build:
# far longer than a small GEMM's compile and link.
HOLD = 6.0


def test_a_kernels_time_leaves_out_its_wait_for_the_llvm_another_thread_holds(tmp_path, monkeypatch, capsys):
    # Worker threads (where there are no worker processes) share this
    # process's LLVM, one compile at a time. While the test holds it, the
    # kernels queue: each one's time must stay its own work, the wait shown apart.
    monkeypatch.setattr(build_cmd, "_semaphores", lambda: False)
    (tmp_path / "p.json").write_text(json.dumps({"problems": SAME_KERNEL[:2]}))
    argv = [
        "build",
        "--problems",
        str(tmp_path / "p.json"),
        "--arch",
        "gfx942",
        "--out",
        str(tmp_path / "o"),
        "--jobs",
        "2",
    ]
    library = capi.load(toolchain_for("llvm23").tools["library"])
    status = []
    with library._lock:  # the lock every compile in this process takes
        build = threading.Thread(target=lambda: status.append(main(argv)))
        build.start()
        time.sleep(HOLD)
    build.join()
    assert status == [0]
    timings = json.loads((tmp_path / "o" / "timings.json").read_text())
    assert sorted(timings) == ["0/gfx942/gemm", "1/gfx942/gemm"]
    assert max(timings.values()) < HOLD / 2, timings
    last = capsys.readouterr().out.splitlines()[-1]
    found = re.search(r" in 2 worker threads .*, (\d+\.\d\d) s waiting for LLVM in all, ", last)
    assert found and float(found[1]) >= HOLD / 2, last


class Terminal(io.StringIO):
    def isatty(self):
        return True


# A split layer (its convolution and its reduce) and two GEMMs one kernel
# serves: 4 kernels, 3 of them built.
PROGRESS = [SPLIT, *SAME_KERNEL[0:3:2]]


PROGRESS_LINE = re.compile(
    r"\[(\d+)/(\d+)\] (\d+):(\d\d) elapsed, (\d+):(\d\d) left: problems\[\d\] \w+ on gfx942: (\w+) -> (\S+) \(\d+\.\d\d s\)"
)


LOWERED_LINE = re.compile(
    r"\[(\d+)/(\d+)\] (\d+):(\d\d) elapsed, (\d+):(\d\d) left: "
    r"lowered problems\[(\d)\] \w+ on gfx942 \((\d) kernels?, \d+\.\d\d s\)"
)


@pytest.mark.parametrize("terminal", [False, True], ids=["plain", "terminal"])
def test_progress_counts_the_problems_lowered_then_the_kernels_built(tmp_path, monkeypatch, terminal):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"problems": PROGRESS}))
    stderr = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    assert (
        main(["build", "--problems", str(path), "--arch", "gfx942", "--out", str(tmp_path / "o"), "--jobs", "1"]) == 0
    )
    text = stderr.getvalue()
    if terminal:  # one line rewritten in place per stage, ended once its last step is done
        assert text.startswith("\r\x1b[K[1/3] ") and text.endswith("\n") and text.count("\n") == 2
        lines = [line for stage in text[:-1].split("\n") for line in stage.split("\r\x1b[K") if line]
    else:  # a plain line per problem lowered, then per kernel built
        assert "\r" not in text and "\x1b" not in text and text.endswith("\n")
        lines = text.splitlines()
    # Lowering shows from the first problem on: a step per (problem, arch).
    lowered = [LOWERED_LINE.fullmatch(line) for line in lines[:3]]
    assert all(lowered), lines
    assert [(int(m[1]), int(m[2]), int(m[7]), int(m[8])) for m in lowered] == [(1, 3, 0, 2), (2, 3, 1, 1), (3, 3, 2, 1)]
    matches = [PROGRESS_LINE.fullmatch(line) for line in lines[3:]]
    assert all(matches), lines
    assert [(int(m[1]), int(m[2])) for m in matches] == [(1, 3), (2, 3), (3, 3)]
    assert sorted((m[7], m[8]) for m in matches) == [
        ("conv_fwd_split_k_reduce", "gfx942/late.reduce.hsaco"),
        ("conv_igemm_fwd", "gfx942/late.hsaco"),
        ("gemm", "gfx942/qkv.hsaco"),
    ]
    assert (int(matches[-1][5]), int(matches[-1][6])) == (0, 0)  # nothing left after the last


@pytest.mark.parametrize(
    "flags,message",
    [
        (["--arch", "gfx942,gfx9000"], "rocke build: expected --arch to list archs llvm23 knows ("),
        (["--arch", "gfx942,gfx942"], "rocke build: expected --arch to list distinct archs"),
        (["--arch", "gfx1250", "--flavor", "llvm20"], "rocke build: expected --arch to list archs llvm20 knows ("),
        (
            ["--problems", "/nonexistent/p.json"],
            "rocke build: cannot read --problems /nonexistent/p.json: No such file or directory",
        ),
        (["--jobs", "0"], "rocke build: expected --jobs to be a positive number, got 0"),
    ],
)
def test_usage_errors_are_one_line_with_status_2(tmp_path, capsys, flags, message):
    (tmp_path / "p.json").write_text(json.dumps({"problems": SAME_KERNEL[:1]}))
    argv = {"--problems": str(tmp_path / "p.json"), "--arch": "gfx942", "--out": str(tmp_path / "o")}
    argv.update(dict(zip(flags[::2], flags[1::2])))
    assert main(["build", *[x for kv in argv.items() for x in kv]]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


# Whole-file errors: (the file's bytes, the message after "rocke build: --problems PATH: ").
PROBLEMS_OBJECT = 'expected a JSON object {"problems": [entry, ...]} and nothing else'


BAD_FILES = {
    "not_json": (b'{"problems": [}', "expected JSON text, got an error at line 1 column 15: Expecting value"),
    "not_problems": (b'{"layers": []}', f'{PROBLEMS_OBJECT}, got an object with the key "layers" and no "problems"'),
    "empty_object": (b"{}", f"{PROBLEMS_OBJECT}, got an empty object"),
    "problems_object": (b'{"problems": {}}', f'{PROBLEMS_OBJECT}, got "problems" holding an object, not an array'),
    "nested_100000": (
        b'{"problems": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "expected arrays and objects nested at most 32 deep (a problems file needs 4), got 100001 levels",
    ),
    "latin1": (
        '{"problems": [{"op": "gemm", "name": "caf\u00e9"}]}'.encode("latin-1"),
        "expected UTF-8 text, got the byte 0xe9 at byte 41 (line 1); save the file as UTF-8",
    ),
    "duplicate_key": (
        b'{"problems": [{"op": "gemm", "m": 64, "n": 64, "k": 64, "m": 128, "dtype": "f16"}]}',
        'expected each key once in an object, got "m" twice in problems[0]; '
        "keep one (JSON readers differ on which one wins)",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_a_file_that_is_not_problems_json_is_one_line_with_status_2(tmp_path, capsys, name):
    data, message = BAD_FILES[name]
    (tmp_path / "p.json").write_bytes(data)
    assert (
        main(["build", "--problems", str(tmp_path / "p.json"), "--arch", "gfx942", "--out", str(tmp_path / "o")]) == 2
    )
    err = capsys.readouterr().err
    assert err == f"rocke build: --problems {tmp_path / 'p.json'}: {message}\n"
    assert not (tmp_path / "o").exists()
