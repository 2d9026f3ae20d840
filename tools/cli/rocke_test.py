"""The rocke command line, run as a user runs it."""


import pytest

from tools.cli import rocke


def test_toolchains_lists_all_four_with_versions_and_sources(capsys):
    assert rocke.main(["toolchains"]) == 0
    out = capsys.readouterr().out
    for flavor, version in [("llvm20", "20.1.8"), ("llvm22", "22.1.8"), ("llvm23", "23.1.4"), ("llvm24", "24.0.0")]:
        assert f"{flavor}\n  version    {version} (reported by the tool)" in out
    assert "source     PyPI wheel llvmlite==0.47.0" in out
    assert "source     Debian package llvm-23 1:23.1.4-2 (sid)" in out
    assert "linker     /usr/lib/llvm-22/bin/ld.lld" in out.split("llvm22")[0]


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as err:
        rocke.main(["toolchain"])
    assert err.value.code == 2
    assert "invalid choice: 'toolchain'" in capsys.readouterr().err
