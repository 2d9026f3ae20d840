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


def test_emit_lists_a_familys_cases(capsys):
    assert rocke.main(["emit", "conv.direct_fwd", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 40 and "2d_nhwc_f16_3x3_gfx942  gfx942" in lines


def test_emit_prints_ir_for_the_flavor(capsys):
    assert rocke.main(["emit", "conv.img2col", "--case", "2d_nhwc_f16_3x3_gfx1250", "--flavor", "llvm24"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("; rocke kernel conv_img2col_2d_nhwc_f16_3x3_gfx1250 for gfx1250, lowered for llvm24")
    assert 'target triple = "amdgpu12.50-amd-amdhsa"' in out


def test_emit_links_a_code_object(tmp_path, capsys, monkeypatch):
    # As `bazel run` from a checkout at tmp_path.
    monkeypatch.setenv("BUILD_WORKSPACE_DIRECTORY", str(tmp_path))
    monkeypatch.setenv("BUILD_WORKING_DIRECTORY", str(tmp_path))
    assert rocke.main(["emit", "conv.direct_fwd", "--case", "2d_nhwc_f16_3x3_gfx942", "--flavor", "llvm20", "--out", "k.hsaco"]) == 0
    assert (tmp_path / "k.hsaco").read_bytes()[:4] == b"\x7fELF"
    assert "wave_size 64" in capsys.readouterr().err


def test_emit_bad_case_and_bad_arch_for_flavor(capsys):
    assert rocke.main(["emit", "conv.direct_fwd", "--case", "2d_nhwc_f16_3x3_gfx943"]) == 2
    assert "Did you mean 2d_nhwc_f16_3x3_gfx942" in capsys.readouterr().err
    assert rocke.main(["emit", "conv.direct_fwd", "--case", "2d_nhwc_f16_3x3_gfx1250", "--flavor", "llvm20"]) == 2
    assert "gfx1250 is not known to llvm20" in capsys.readouterr().err
    assert rocke.main(["emit", "no.such.family", "--list"]) == 2
    assert "cannot load family module 'no.such.family'" in capsys.readouterr().err


def test_emit_refuses_paths_the_host_would_not_see(capsys, monkeypatch):
    monkeypatch.setenv("BUILD_WORKSPACE_DIRECTORY", "/work/checkout")
    assert rocke.main(["emit", "conv.direct_fwd", "--case", "2d_nhwc_f16_3x3_gfx942", "--out", "/tmp/k.ll"]) == 2
    assert "cannot write /tmp/k.ll" in capsys.readouterr().err
