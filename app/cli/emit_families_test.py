"""`rocke emit` against every family of the registry, and its --out rules."""

import os

import pytest
import rocke_families

from app.cli import rocke

# The families with a case on gfx1250 (every family but attention_fwd, which has no tile there), and the first of them.
ON_GFX1250 = [m for m, f in rocke_families.FAMILIES.items() if any(c.arch == "gfx1250" for c in f.cases)]
FIRST = ON_GFX1250[0]


def _first_case(module):
    return rocke_families.FAMILIES[module].cases[0]


@pytest.mark.parametrize("module", rocke_families.FAMILIES)
def test_emit_lists_every_case_of_every_family(module, capsys):
    assert rocke.main(["emit", module, "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed == [f"{c.id}  {c.arch}" for c in rocke_families.FAMILIES[module].cases]


def test_only_attention_lacks_gfx1250():
    assert set(rocke_families.FAMILIES) - set(ON_GFX1250) == {"attention.attention"}


@pytest.mark.parametrize("module", ON_GFX1250)
def test_emit_prints_ir_for_the_flavor(module, capsys):
    case = next(c for c in rocke_families.FAMILIES[module].cases if c.arch == "gfx1250")
    assert rocke.main(["emit", module, "--case", case.id, "--flavor", "llvm24"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"; rocke kernel {rocke_families.FAMILIES[module].name}_{case.id} for gfx1250, lowered for llvm24"
    )
    assert 'target triple = "amdgpu12.50-amd-amdhsa"' in out


def test_emit_links_a_code_object(tmp_path, capsys, monkeypatch):
    # As `bazel run` from a checkout at tmp_path.
    monkeypatch.setenv("BUILD_WORKSPACE_DIRECTORY", str(tmp_path))
    monkeypatch.setenv("BUILD_WORKING_DIRECTORY", str(tmp_path))
    case = next(c for c in rocke_families.FAMILIES[FIRST].cases if c.arch == "gfx942")
    assert rocke.main(["emit", FIRST, "--case", case.id, "--flavor", "llvm20", "--out", "k.hsaco"]) == 0
    assert (tmp_path / "k.hsaco").read_bytes()[:4] == b"\x7fELF"
    assert "wave_size 64" in capsys.readouterr().err


def test_emit_bad_case_and_bad_arch_for_flavor(capsys):
    fam = rocke_families.FAMILIES[FIRST]
    case = next(c for c in fam.cases if c.arch == "gfx942")
    assert rocke.main(["emit", FIRST, "--case", case.id[:-1] + "3"]) == 2
    assert f"Did you mean {case.id}" in capsys.readouterr().err
    gfx1250 = next(c for c in fam.cases if c.arch == "gfx1250")
    assert rocke.main(["emit", FIRST, "--case", gfx1250.id, "--flavor", "llvm20"]) == 2
    assert "gfx1250 is not known to llvm20" in capsys.readouterr().err


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A `bazel run` started in <tmp>/checkout/sub."""
    root = tmp_path / "checkout"
    (root / "sub").mkdir(parents=True)
    monkeypatch.setenv("BUILD_WORKSPACE_DIRECTORY", str(root))
    monkeypatch.setenv("BUILD_WORKING_DIRECTORY", str(root / "sub"))
    return root


def _emit_ir(out):
    return rocke.main(["emit", FIRST, "--case", _first_case(FIRST).id, "--out", out])


def _no_leftovers(folder):
    return [n for n in os.listdir(folder) if n.startswith(".") or n.endswith(".tmp")] == []


def test_out_is_relative_to_where_bazel_run_started(checkout, capsys):
    assert _emit_ir("k.ll") == 0
    assert capsys.readouterr().err == f"rocke emit: wrote {checkout / 'sub' / 'k.ll'}\n"
    assert (checkout / "sub" / "k.ll").read_text().startswith("; rocke kernel")


@pytest.mark.parametrize("out", ["/tmp/k.ll", "/var/cache/rocke/k.ll", "../../k.ll"])
def test_out_outside_the_checkout_is_refused(checkout, capsys, out):
    assert _emit_ir(out) == 2
    err = capsys.readouterr().err
    assert err.startswith("rocke emit: cannot write ") and err.count("\n") == 1
    assert f"inside the checkout {checkout}; give an --out path inside it" in err


def test_out_through_a_symlink_reports_where_it_really_writes(checkout, capsys):
    (checkout / "real").mkdir()
    os.symlink(checkout / "real", checkout / "sub" / "link")
    assert _emit_ir("link/k.ll") == 0
    assert capsys.readouterr().err == f"rocke emit: wrote {checkout / 'real' / 'k.ll'}\n"
    assert (checkout / "real" / "k.ll").is_file()


def test_out_symlink_leaving_the_checkout_is_refused(checkout, tmp_path, capsys):
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", checkout / "sub" / "escape")
    assert _emit_ir("escape/k.ll") == 2
    assert f"cannot write {tmp_path / 'elsewhere' / 'k.ll'}" in capsys.readouterr().err
    assert os.listdir(tmp_path / "elsewhere") == []


@pytest.mark.parametrize(
    "out, message",
    [
        ("missing/k.ll", "the folder {sub}/missing does not exist; create it or choose another path"),
        ("folder.ll", "it is an existing folder; name a file inside it"),
    ],
)
def test_out_path_errors_are_one_line_and_leave_nothing(checkout, capsys, out, message):
    (checkout / "sub" / "folder.ll").mkdir()
    assert _emit_ir(out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message.format(sub=checkout / "sub") in err
    assert "Traceback" not in err
    assert _no_leftovers(checkout / "sub") and os.listdir(checkout / "sub" / "folder.ll") == []
