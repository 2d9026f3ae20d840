"""kernel_main: a refused entry is recorded in its row file, not a failed action."""

import json

from planner import kernel_main


def _run(tmp_path, index, obj, arch):
    code, row = tmp_path / "k.hsaco", tmp_path / "k.row.json"
    status = kernel_main.main([
        "--entry", json.dumps(obj), "--index", str(index), "--arch", arch,
        "--toolchain", str(tmp_path / "unused-toolchain.json"),
        "--code-object", str(code), "--row", str(row),
    ])
    return status, (json.loads(row.read_text()) if row.exists() else None), (code.read_bytes() if code.exists() else None)


def test_an_entry_no_family_builds_on_the_arch_is_recorded_with_its_name(tmp_path):
    # The gemm family has no fp8 tile on gfx942 (gemm/tiles.py), only on gfx950.
    status, row, code = _run(tmp_path, 1, {"op": "gemm", "name": "g8", "m": 64, "n": 64, "k": 64, "dtype": "fp8"}, "gfx942")
    assert status == 0 and code == b""
    assert row["name"] == "g8"
    assert (row["refused"]["problem"], row["refused"]["arch"], row["refused"]["field"]) == (1, "gfx942", "dtype")
    assert "'fp8'" in row["refused"]["message"]


def test_a_bad_entry_is_recorded_without_arch_or_name(tmp_path):
    status, row, code = _run(tmp_path, 4, {"op": "gemm", "m": 64, "n": 64}, "gfx950")
    assert status == 0 and code == b""
    assert row == {"name": None, "refused": {"problem": 4, "arch": None, "field": "k", "message": "expected a value (the field is required), got none"}}


def test_an_unwritable_output_still_fails_the_action(tmp_path, capsys):
    missing = str(tmp_path / "missing-folder" / "k")
    status = kernel_main.main([
        "--entry", json.dumps({"op": "gemm", "m": 64, "n": 64}), "--index", "0", "--arch", "gfx942",
        "--toolchain", "unused.json", "--code-object", missing + ".hsaco", "--row", missing + ".row.json",
    ])
    assert status == 1 and "rocke catalog:" in capsys.readouterr().err
