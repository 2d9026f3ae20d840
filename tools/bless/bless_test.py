"""bless's writer and label handling, on a scratch workspace."""

import os

import pytest

from tools.bless import bless


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "goldens" / "library" / "conv").mkdir(parents=True)
    return tmp_path


def test_labels_split_as_rocke_family_names_them():
    assert bless.split("//library/conv:conv_img2col_golden_llvm22") == ("library/conv", "conv_img2col", "llvm22")


def test_writes_under_goldens_atomically_and_only_when_changed(ws):
    w = bless.Writer(str(ws), check=False)
    path = ws / "goldens" / "library" / "conv" / "f.llvm22.golden"
    assert w.write(str(path), "one\n") and path.read_text() == "one\n"
    assert not w.write(str(path), "one\n")  # blessing twice changes nothing
    assert w.writes == 1
    assert not [p for p in os.listdir(path.parent) if p.startswith(".bless-")]  # no temp file left


def test_refuses_to_write_outside_goldens(ws):
    w = bless.Writer(str(ws), check=False)
    with pytest.raises(bless.BlessError, match="refusing to write .*outside .*goldens"):
        w.write(str(ws / "library" / "conv" / "evil.py"), "x")
    os.symlink(ws / "library", ws / "goldens" / "escape")
    with pytest.raises(bless.BlessError, match="refusing to write"):
        w.write(str(ws / "goldens" / "escape" / "evil.py"), "x")


def test_check_mode_counts_but_writes_nothing(ws):
    w = bless.Writer(str(ws), check=True)
    path = ws / "goldens" / "library" / "conv" / "f.llvm22.golden"
    assert w.write(str(path), "new\n")
    assert not path.exists() and w.writes == 1


def test_needs_bazel_run(monkeypatch, capsys):
    monkeypatch.delenv("BUILD_WORKSPACE_DIRECTORY", raising=False)
    assert bless.main([]) == 2
    assert "./bazel run //tools:bless" in capsys.readouterr().err
