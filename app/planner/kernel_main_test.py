"""kernel_main: a refused entry is recorded in its rows.json, not a failed action."""

import json
import os

from arch import arch
from planner import kernel_main


def _argv(obj, index, arch, toolchain, out):
    return ["--entry", json.dumps(obj), "--index", str(index), "--arch", arch, "--toolchain", toolchain, "--out", out]


def _run(tmp_path, index, obj, arch):
    out = tmp_path / "k"
    out.mkdir()  # Bazel makes an action's output folder before the action runs
    status = kernel_main.main(_argv(obj, index, arch, str(tmp_path / "unused-toolchain.json"), str(out)))
    rows = json.loads((out / "rows.json").read_text()) if (out / "rows.json").exists() else None
    files = sorted(os.path.relpath(os.path.join(d, f), out) for d, _, fs in os.walk(out) for f in fs)
    return status, rows, files


def test_an_entry_no_family_builds_on_the_arch_is_recorded_with_its_name(tmp_path):
    # The gemm family has no fp8 tile on gfx942 (gemm/tiles.py), only on gfx950.
    status, rows, files = _run(
        tmp_path, 1, {"op": "gemm", "name": "g8", "m": 64, "n": 64, "k": 64, "dtype": "fp8"}, "gfx942"
    )
    assert status == 0 and files == ["rows.json"]
    [row] = rows
    assert row["name"] == "g8"
    assert (row["refused"]["problem"], row["refused"]["arch"], row["refused"]["field"]) == (1, "gfx942", "dtype")
    assert "'fp8'" in row["refused"]["message"]


def test_a_bad_entry_is_recorded_without_arch_or_name(tmp_path):
    status, rows, files = _run(tmp_path, 4, {"op": "gemm", "m": 64, "n": 64}, "gfx950")
    assert status == 0 and files == ["rows.json"]
    assert rows == [
        {
            "name": None,
            "refused": {
                "problem": 4,
                "arch": None,
                "field": "k",
                "message": "expected a value (the field is required), got none",
            },
        }
    ]


def test_an_unwritable_output_still_fails_the_action(tmp_path, capsys):
    (tmp_path / "a-file").write_text("")
    entry = {"op": "gemm", "m": 64, "n": 64}
    status = kernel_main.main(_argv(entry, 0, "gfx942", "unused.json", str(tmp_path / "a-file" / "k")))
    assert status == 1 and "rocke catalog:" in capsys.readouterr().err


def test_an_unknown_arch_fails_the_action_in_one_line_naming_the_known_ones(tmp_path, capsys):
    status, rows, files = _run(tmp_path, 0, {"op": "gemm", "m": 64, "n": 64, "k": 64, "dtype": "f16"}, "gfx9999")
    err = capsys.readouterr().err
    assert status == 1 and rows is None and files == []
    assert err.startswith(f"rocke catalog: arch: expected one of {', '.join(arch.ARCHS)}, got 'gfx9999'"), err
    assert len(err.splitlines()) == 1, err


def test_a_flavor_that_cannot_lower_the_arch_fails_the_action_naming_arch_domain_error(tmp_path, capsys):
    # llvm20 does not know gfx1250: the lowering refuses before any LLVM runs, and the line says which error it is.
    out = tmp_path / "k"
    out.mkdir()
    gemm = {"op": "gemm", "name": "g", "m": 64, "n": 64, "k": 64, "dtype": "f16"}
    status = kernel_main.main(_argv(gemm, 0, "gfx1250", os.environ["ROCKE_LLVM20"], str(out)))
    err = capsys.readouterr().err
    assert status == 1 and os.listdir(out) == []
    assert err.startswith("rocke catalog: ArchDomainError: ") and "gfx1250 is not known to llvm20" in err, err
    assert len(err.splitlines()) == 1, err


def test_a_family_outside_the_programs_registry_fails_the_action_naming_it(tmp_path, capsys, monkeypatch):
    # A rocke_catalog's kernel_main holds the catalog's families alone: a plan that takes another fails the build.
    monkeypatch.setattr(kernel_main.rocke_families, "FAMILIES", {})
    out = tmp_path / "k"
    out.mkdir()
    gemm = {"op": "gemm", "name": "g", "m": 64, "n": 64, "k": 64, "dtype": "f16"}
    status = kernel_main.main(_argv(gemm, 0, "gfx942", os.environ["ROCKE_LLVM20"], str(out)))
    err = capsys.readouterr().err
    assert status == 1 and os.listdir(out) == []
    assert err.startswith("rocke catalog: expected gemm.gemm (family gemm) in the family registry, got only none"), err
    assert err.rstrip().endswith("add its rocke_family to the rocke_catalog's families") and len(err.splitlines()) == 1
