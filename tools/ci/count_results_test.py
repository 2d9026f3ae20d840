"""count_results.py against the build-event files of real Bazel runs
(tools/ci/testdata, made by generate.sh there): its counts must be the ones
Bazel itself printed for the same run."""

import glob
import json
import os
import re

import pytest

from tools.ci import count_results

DATA = "tools/ci/testdata"
RUNS = sorted(os.path.basename(p).removesuffix(".bep.json") for p in glob.glob(f"{DATA}/*.bep.json"))

# Bazel's words for each category, in its "Executed A out of N tests: ..." line.
PHRASES = {
    "passed": r"(\d+) tests? pass(?:es)?",
    "failed": r"(\d+) fails? (?:locally|remotely)",
    "not_built": r"(\d+) fails? to build",
    "skipped": r"(\d+) (?:was|were) skipped",
}


def bazel_counts(name):
    """(passed, failed, not_built, skipped) as Bazel summarised the run NAME."""
    with open(f"{DATA}/{name}.summary") as f:
        line = f.read().strip()
    counts = dict.fromkeys(count_results.CATEGORIES, 0)
    if line == "none":
        return tuple(counts.values())
    head, tail = line.rstrip(".").split(": ", 1)
    for part in re.split(r", | and ", tail):
        category = next((c for c, p in PHRASES.items() if re.fullmatch(p, part)), None)
        assert category, f"unknown phrase {part!r} in Bazel's summary {line!r}"
        counts[category] = int(re.fullmatch(PHRASES[category], part).group(1))
    total = int(re.search(r"out of (\d+) tests?", head).group(1))
    assert sum(counts.values()) == total, line
    return tuple(counts.values())


def test_every_kind_of_run_is_there():
    assert RUNS == ["analysis_failure", "build_failure", "green", "test_failure"]


@pytest.mark.parametrize("name", RUNS)
def test_counts_are_bazels_own(name):
    counts, _ = count_results.count(count_results.read_events(f"{DATA}/{name}.bep.json"))
    assert counts == bazel_counts(name)


def test_a_build_that_stops_half_way_has_every_category():
    """The run CI once miscounted: a build failure, with tests that passed before
    it and tests it never ran (their summaries arrive as aborted events)."""
    passed, failed, not_built, skipped = bazel_counts("build_failure")
    assert passed > 0 and not_built > 0 and skipped > 0
    counts, not_passed = count_results.count(count_results.read_events(f"{DATA}/build_failure.bep.json"))
    assert counts == (passed, failed, not_built, skipped)
    assert ("not_built", "//toolchains/python:toolchain_test") in not_passed


def test_main_prints_the_counts_and_names_what_did_not_pass(capsys):
    assert count_results.main([f"{DATA}/test_failure.bep.json"]) == 0
    out, err = capsys.readouterr()
    assert out == "1 1 0 0\n"
    assert "failed: //platform/ir:ir_test" in err


def test_a_missing_file_is_one_clear_error(capsys, tmp_path):
    assert count_results.main([str(tmp_path / "bep.json")]) == 2
    assert "cannot read the build-event file" in capsys.readouterr().err


def test_a_cut_off_last_line_is_dropped(tmp_path):
    with open(f"{DATA}/green.bep.json") as f:
        lines = f.read().splitlines()
    cut = tmp_path / "bep.json"
    cut.write_text("\n".join(lines) + "\n" + lines[-1][: len(lines[-1]) // 2])
    assert count_results.count(count_results.read_events(str(cut)))[0] == bazel_counts("green")


def test_a_broken_line_inside_is_an_error(tmp_path):
    with open(f"{DATA}/green.bep.json") as f:
        lines = f.read().splitlines()
    broken = tmp_path / "bep.json"
    broken.write_text("\n".join(lines[:3] + ["{not json"] + lines[3:]) + "\n")
    with pytest.raises(count_results.BepError, match=r"bep.json:4 is not a JSON build event"):
        count_results.read_events(str(broken))


def test_data_is_one_json_event_per_line():
    for name in RUNS:
        with open(f"{DATA}/{name}.bep.json") as f:
            assert all("id" in json.loads(line) for line in f)
