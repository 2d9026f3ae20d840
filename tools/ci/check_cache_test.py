"""check_cache.sh: a check whose inputs are unchanged since it passed is not
run again and its report is shown; a changed input, a changed command, a new
root, uncommitted changes and a failed run all run the check."""

import os
import subprocess

import pytest

SCRIPT = os.path.abspath("tools/ci/check_cache.sh")

# A check that counts its runs in runs.txt and passes unless FAIL is set.
CHECK = """#!/usr/bin/env bash
echo run >> "$RUNS"
echo "PASS the thing"
if [[ -n ${FAIL:-} ]]; then echo "checks: 0 passed, 1 failed"; exit 1; fi
echo "checks: 1 passed, 0 failed"
"""


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.txt").write_text("a\n")
    (root / "other.txt").write_text("o\n")
    (root / "check.sh").write_text(CHECK)
    (root / "check.sh").chmod(0o755)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    return root, git


def run(root, tmp_path, *, fail="", key="k1", command="./check.sh"):
    env = dict(
        os.environ,
        RUNS=str(tmp_path / "runs.txt"),
        FAIL=fail,
        ROCKE_ROOT_KEY=key,
        ROCKE_CHECK_RESULTS=str(tmp_path / "results"),
    )
    script = f'source "{SCRIPT}"; check_cache_run "src check.sh" {command}'
    proc = subprocess.run(["bash", "-c", script], cwd=root, env=env, capture_output=True, text=True)
    runs = (tmp_path / "runs.txt").read_text().count("run") if (tmp_path / "runs.txt").exists() else 0
    return proc.returncode, proc.stdout, runs


def test_unchanged_inputs_replay_the_passing_report(repo, tmp_path):
    root, _ = repo
    assert run(root, tmp_path)[::2] == (0, 1)
    status, out, runs = run(root, tmp_path)
    assert (status, runs) == (0, 1)
    assert "inputs unchanged since it passed" in out and "checks: 1 passed, 0 failed" in out


def test_a_file_outside_the_inputs_changes_nothing(repo, tmp_path):
    root, git = repo
    run(root, tmp_path)
    (root / "other.txt").write_text("changed\n")
    subprocess.run([*git, "commit", "-qam", "y"], check=True)
    assert run(root, tmp_path)[2] == 1


def test_a_committed_change_to_an_input_runs_it(repo, tmp_path):
    root, git = repo
    run(root, tmp_path)
    (root / "src" / "a.txt").write_text("changed\n")
    subprocess.run([*git, "commit", "-qam", "y"], check=True)
    assert run(root, tmp_path)[2] == 2


def test_an_uncommitted_change_runs_it_and_is_not_stored(repo, tmp_path):
    root, git = repo
    (root / "src" / "a.txt").write_text("dirty\n")
    assert run(root, tmp_path)[2] == 1
    assert run(root, tmp_path)[2] == 2
    assert not (tmp_path / "results").exists()


def test_another_root_or_command_runs_it(repo, tmp_path):
    root, _ = repo
    run(root, tmp_path)
    assert run(root, tmp_path, key="k2")[2] == 2
    assert run(root, tmp_path, command="./check.sh --flag")[2] == 3


def test_a_failed_run_is_never_replayed(repo, tmp_path):
    root, _ = repo
    status, out, runs = run(root, tmp_path, fail="1")
    assert (status, runs) == (1, 1) and "checks: 0 passed, 1 failed" in out
    assert run(root, tmp_path, fail="1")[::2] == (1, 2)
