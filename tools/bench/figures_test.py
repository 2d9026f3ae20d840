"""figures: a bench's docs/figures/NAME.md opens with its title and the exact
command and date of the run, replaces the last run's file whole (nothing
left beside it), and refuses, in one line, to write outside `bazel run`."""

import os
import re
import stat
import time

import pytest

from tools.bench import figures

LABEL = "//tools/bench:tile"


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    (tmp_path / "docs" / "figures").mkdir(parents=True)
    monkeypatch.setenv("BUILD_WORKSPACE_DIRECTORY", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize(
    "path, flag",
    [
        ("/x/bazel-out/k8-opt/bin/tools/bench/compile.runfiles/_main/tools/bench/compile_bench.py", "-c opt "),
        ("/x/bazel-out/k8-dbg/bin/tools/bench/tile.runfiles/_main/tools/bench/tile_bench.py", "-c dbg "),
        ("/x/bazel-out/k8-fastbuild/bin/tools/bench/tile.runfiles/_main/tools/bench/tile_bench.py", ""),
        ("/x/bazel-out/k8-opt-ST-0123abcd/bin/tools/bench/tile.runfiles/_main/tools/bench/tile_bench.py", "-c opt "),
        ("/work/checkout/tools/bench/tile_bench.py", ""),
    ],
)
def test_the_mode_is_read_from_where_bazel_put_the_script(path, flag):
    assert figures.mode_flag(path) == flag


def test_the_command_names_every_option_with_its_value():
    opt = "/o/bazel-out/k8-opt/bin/tools/bench/compile.runfiles/_main/tools/bench/compile_bench.py"
    assert figures.command("//tools/bench:compile", opt, [("--kernels", 24)]) == (
        "./bazel run -c opt //tools/bench:compile -- --kernels 24"
    )
    assert (
        figures.command(LABEL, "/src/tile_bench.py", [("--json", None)]) == "./bazel run //tools/bench:tile -- --json"
    )
    assert figures.command(LABEL, "/src/tile_bench.py") == "./bazel run //tools/bench:tile"


def test_the_file_opens_with_title_command_and_date(checkout):
    path = figures.write("tile", "The tile", "./bazel run //tools/bench:tile", "| a | b |\n", date="2026-12-02")
    assert path == str(checkout / "docs" / "figures" / "tile.md")
    lines = open(path).read().splitlines()
    assert lines[0] == "# The tile"
    assert re.fullmatch(
        r"`\./bazel run //tools/bench:tile`, measured 2026-12-02 \(\d+ cores, load average [\d. ]+\)\.", lines[2]
    )
    assert lines[4:] == ["| a | b |"]


def test_the_date_defaults_to_today(checkout):
    path = figures.write("tile", "The tile", "cmd", "body")
    assert f"measured {time.strftime('%Y-%m-%d')} (" in open(path).read()


def test_a_second_run_replaces_the_file_whole(checkout):
    figures.write("tile", "T", "cmd", "first run\n" * 100, date="2026-12-01")
    path = figures.write("tile", "T", "cmd", "second run", date="2026-12-02")
    text = open(path).read()
    assert "first run" not in text and text.endswith("second run\n")
    assert "measured 2026-12-02" in text
    assert os.listdir(checkout / "docs" / "figures") == ["tile.md"]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644


def test_outside_bazel_run_it_refuses_naming_the_command(monkeypatch):
    monkeypatch.delenv("BUILD_WORKSPACE_DIRECTORY", raising=False)
    with pytest.raises(
        figures.FiguresError, match=r"^tile: not run by `bazel run`.*run \./bazel run //tools/bench:tile$"
    ):
        figures.write("tile", "T", "./bazel run //tools/bench:tile", "body")


def test_publish_prints_the_body_and_fails_in_one_line_when_it_cannot_write(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BUILD_WORKSPACE_DIRECTORY", str(tmp_path))  # no docs/figures folder
    assert figures.publish("tile", "T", "cmd", "the body") == 1
    out, err = capsys.readouterr()
    assert out == "the body\n"
    assert err.count("\n") == 1 and err.startswith("bench: cannot write ") and "docs/figures/tile.md" in err


def test_publish_says_where_it_wrote(checkout, capsys):
    assert figures.publish("tile", "T", "cmd", "the body") == 0
    assert capsys.readouterr().err == f"bench: wrote {checkout}/docs/figures/tile.md\n"


def test_publish_can_print_something_else_than_the_file_holds(checkout, capsys):
    assert figures.publish("tile", "T", "cmd", "the tables", shown='{"json": 1}') == 0
    assert capsys.readouterr().out == '{"json": 1}\n'
    assert open(checkout / "docs" / "figures" / "tile.md").read().endswith("\n\nthe tables\n")
