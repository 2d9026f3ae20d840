"""Each tool of the style test fails on its own kind of violation and names
the file; clean files pass."""

import os
import textwrap

import pytest

from tools.style import style_main

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = [os.environ[k] for k in ("ROCKE_RUFF_TOML", "ROCKE_MYPY_INI", "ROCKE_CLANG_FORMAT")]

CLEAN_PY = "def twice(x: int) -> int:\n    return 2 * x\n"
CLEAN_CC = "int twice(int x) { return 2 * x; }\n"

VIOLATIONS = {
    "ruff check": ("bad.py", "import os\n\n\ndef twice(x: int) -> int:\n    return 2 * x\n"),
    "ruff format": ("bad.py", "def twice(x: int) -> int:\n    return 2*x\n"),
    "mypy": ("bad.py", 'def twice(x: int) -> int:\n    return 2 * x\n\n\ny = twice("a")\n'),
    "clang-format": ("bad.cc", "int twice(int x) {return 2*x;}\n"),
}


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_clean_files_pass(tmp_path, capsys):
    files = [_write(tmp_path, "good.py", CLEAN_PY), _write(tmp_path, "good.cc", CLEAN_CC)]
    assert style_main.main(["style_main.py", *CONFIGS, *files]) == 0
    assert capsys.readouterr().out == "style: 2 files, clean\n"


@pytest.mark.parametrize("tool", sorted(VIOLATIONS))
def test_each_tool_fails_on_its_violation_naming_the_file(tool, tmp_path, capsys):
    name, text = VIOLATIONS[tool]
    bad = _write(tmp_path, name, text)
    assert style_main.main(["style_main.py", *CONFIGS, bad]) == 1
    out = capsys.readouterr().out
    assert f"{tool} failed:" in out and "bad." in out, out
    failed = [t for t in VIOLATIONS if f"{t} failed:" in out]
    assert failed == [tool], out


def test_a_package_with_nothing_to_check_is_an_error(capsys):
    assert style_main.main(["style_main.py", *CONFIGS]) == 1
    assert "no sources to check" in capsys.readouterr().err
