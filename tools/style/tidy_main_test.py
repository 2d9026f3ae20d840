"""The tidy test fails on a planted violation of each check family of
.clang-tidy, naming the file, the line and the check; clean files pass. And
through Bazel: the aspect's own flags tidy testdata/planted.cc, which is
reported, not a compile error."""

import os

import pytest

from tools.style import tidy_main

# Absolute: the tests run in a folder of their own.
CONFIG = os.path.abspath(os.environ["ROCKE_CLANG_TIDY"])
FLAGS = ["-std=c++20", "-Wall", "-Wextra", "-Werror"]

# Static (misc-use-internal-linkage) and maybe unused (-Wunused-function).
CLEAN_CC = "[[maybe_unused]] static int twice(int x) { return 2 * x; }\n"

# One violation per check family .clang-tidy enables: check -> (line, text).
VIOLATIONS = {
    "bugprone-use-after-move": (
        5,
        "#include <string>\n#include <utility>\n[[maybe_unused]] static std::string twice(std::string s) {\n"
        "  std::string t = std::move(s);\n  return t + s;\n}\n",
    ),
    "performance-unnecessary-value-param": (
        3,
        "#include <cstddef>\n#include <string>\n[[maybe_unused]] static std::size_t length(std::string s) { return s.size(); }\n",
    ),
    "modernize-use-nullptr": (1, "[[maybe_unused]] static int* none() { return 0; }\n"),
    "readability-container-size-empty": (
        2,
        "#include <string>\n[[maybe_unused]] static bool none(const std::string& s) { return s.size() == 0; }\n",
    ),
}


@pytest.fixture
def work(tmp_path, monkeypatch):
    """An empty folder to run in, as the action runs in the execroot."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _write(name, text):
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    with open(name, "w") as f:
        f.write(text)
    return name


def _tidy(source, package="pkg", flags=()):
    """The exit status of `check` over the report of `run` over `source`."""
    assert tidy_main.main(["tidy_main.py", "run", CONFIG, package, "report.txt", source, "--", *FLAGS, *flags]) == 0
    return tidy_main.main(["tidy_main.py", "check", "report.txt"])


def test_a_clean_file_passes(work, capsys):
    assert _tidy(_write("pkg/good.cc", CLEAN_CC)) == 0
    assert capsys.readouterr().out == "tidy: 1 compiled sources, clean\n"


@pytest.mark.parametrize("check", sorted(VIOLATIONS))
def test_each_check_family_fails_on_its_violation_naming_file_line_and_check(check, work, capsys):
    line, text = VIOLATIONS[check]
    assert _tidy(_write("pkg/bad.cc", text)) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"pkg/bad.cc:{line}:") and f"[{check}]" in out, out
    assert "tidy: 1 compiled sources, 1 findings above" in out, out


def test_a_compile_error_fails(work, capsys):
    assert _tidy(_write("pkg/bad.cc", "[[maybe_unused]] static int twice(int x) { return 2 * y; }\n")) == 1
    out = capsys.readouterr().out
    assert out.startswith("pkg/bad.cc:1:") and "use of undeclared identifier 'y'" in out, out


@pytest.mark.parametrize("include", ['"bad.h"', '"pkg/bad.h"'])
def test_only_the_packages_own_headers_count(include, work, capsys):
    _write("pkg/bad.h", "#pragma once\ninline int* none() { return 0; }\n")
    _write("pkg/sub/bad.h", "#pragma once\ninline int* other() { return 0; }\n")
    text = f'#include {include}\n#include "pkg/sub/bad.h"\n[[maybe_unused]] static int* both() {{ return none() ? none() : other(); }}\n'
    source = _write("pkg/user.cc", text)
    assert _tidy(source, flags=["-iquote", "."]) == 1
    out = capsys.readouterr().out
    assert "bad.h:2:" in out and "pkg/sub/" not in out, out
    assert _tidy(source, package="other", flags=["-iquote", "."]) == 0


def test_a_finding_several_reports_share_is_printed_once(work, capsys):
    _write("report.txt", "a.h:1:1: warning: once [modernize-use-nullptr]\n  code\n")
    assert tidy_main.main(["tidy_main.py", "check", "report.txt", "report.txt"]) == 1
    assert capsys.readouterr().out.count("a.h:1:1:") == 1


def test_no_reports_is_an_error(capsys):
    assert tidy_main.main(["tidy_main.py", "check"]) == 1
    assert "no reports to check" in capsys.readouterr().err


def test_the_aspect_reports_the_planted_violation():
    # testdata/planted.cc includes a header of its dep by the path the dep's
    # CcInfo gives; with wrong flags this would be a compile error instead.
    (report,) = os.environ["ROCKE_TIDY_PLANTED"].split()
    with open(report) as f:
        text = f.read()
    (finding,) = tidy_main.findings(text)
    assert finding.startswith("tools/style/testdata/planted.cc:"), text
    assert "[modernize-use-nullptr]" in finding, text
    assert tidy_main.check([report]) == 1
