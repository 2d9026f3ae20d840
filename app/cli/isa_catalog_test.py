"""`rocke isa --catalog DIR`: a catalog that the real `rocke build` writes,
measured code object by code object; Triton's tutorial GEMM (testdata/triton)
as a catalog of another compiler's code objects, against the figures issue 19
quotes for it; and the one-line refusals of a catalog that disagrees with its
index. It links the families its problems need alone (gemm, conv_igemm_fwd and
its split-K reduce), so an edit to another family does not re-run it."""

import hashlib
import json
import pathlib
import shutil

import pytest

from app.cli import build_cmd, command_line, isa_cmd
from catalog import index
from conv import igemm_fwd, split_k_reduce
from gemm import gemm

TRITON = pathlib.Path(__file__).parent / "testdata" / "triton"
PROBLEMS = [
    {"op": "gemm", "m": 128, "n": 128, "k": 256, "dtype": "f16", "layout_b": "col"},
    {"op": "gemm", "name": "same_kernel", "m": 256, "n": 128, "k": 256, "dtype": "f16", "layout_b": "col"},
    {"op": "conv_fwd", "name": "pointwise", "n": 1, "c": 256, "k": 64, "spatial": [8, 8], "filter": [1, 1]},
]
ARCHS = ["gfx942", "gfx1201"]
COMMANDS = {"build": build_cmd, "isa": isa_cmd}
FAMILIES = command_line.registry(gemm, igemm_fwd, split_k_reduce)


def _rocke(argv):
    return command_line.main(argv, COMMANDS, FAMILIES)


def _isa(capsys, *argv):
    status = _rocke(["isa", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    problems = tmp_path_factory.mktemp("in") / "problems.json"
    problems.write_text(json.dumps({"problems": PROBLEMS}))
    out = tmp_path_factory.mktemp("catalog")
    argv = ["build", "--problems", str(problems), "--arch", ",".join(ARCHS), "--out", str(out), "--jobs", "1"]
    assert _rocke(argv) == 0
    return out


def test_every_code_object_of_a_built_catalog_is_one_entry_with_its_rows_figures(built, capsys):
    status, out, err = _isa(capsys, "--catalog", str(built), "--json")
    assert status == 0, err
    result = json.loads(out)
    assert out == json.dumps(result, sort_keys=True, separators=(",", ":")) + "\n"
    rows = json.loads((built / "index.json").read_text())["kernels"]
    paths = list(dict.fromkeys(r["path"] for r in rows))
    # The two gemms differ only in m, which the kernel takes at run time: one
    # code object serves both, and it is measured once.
    assert len(rows) == len(paths) + len(ARCHS)
    assert [e["path"] for e in result["code_objects"]] == paths
    for entry in result["code_objects"]:
        served = [r for r in rows if r["path"] == entry["path"]]
        assert entry["names"] == [r["name"] for r in served]
        assert (entry["arch"], entry["kernel"], entry["family"]) == (
            served[0]["arch"],
            served[0]["kernel"],
            served[0]["family"],
        )
        assert entry["resources"]["vgpr"] == served[0]["vgpr"] > 0
        assert entry["resources"]["occupancy"] == served[0]["occupancy"] >= 1
        loop = entry["main_loop"]
        if entry["family"].endswith("_split_k_reduce"):  # a split layer's reduce has no loop
            assert loop is None, entry["path"]
            continue
        assert loop is not None, entry["path"]
        matrix = loop["matrix"]
        # Every one is a 16x16x16 f16 form (MFMA on gfx942, WMMA on gfx1201).
        assert [r["mnemonic"].endswith("_16x16x16_f16") for r in matrix["by_mnemonic"]] == [True], entry["path"]
        assert matrix["macs"] == matrix["count"] * 16 * 16 * 16
        issued = loop["instructions"] - loop["scheduling_hints"]
        assert loop["loop_instructions"] == issued
        assert loop["non_matrix_per_4096_macs"] == f"{(issued - matrix['count']) / matrix['count']:.2f}"
        assert 0 <= loop["cover"]["count"] <= loop["cover"]["of"] == matrix["count"]
    # Progress off a terminal: a line per code object.
    assert len([line for line in err.splitlines() if line.startswith("[")]) == len(paths)


def test_the_text_form_is_a_row_per_code_object(built, capsys):
    status, out, _ = _isa(capsys, "--catalog", str(built))
    assert status == 0
    lines = out.splitlines()
    rows = json.loads((built / "index.json").read_text())["kernels"]
    paths = list(dict.fromkeys(r["path"] for r in rows))
    assert lines[0].startswith(f"{built}: {len(paths)} code objects;")
    assert lines[1].split()[:3] == ["code", "object", "name"]
    assert [line.split()[0] for line in lines[2:]] == paths
    for path in paths:
        names = [r["name"] for r in rows if r["path"] == path]
        line = next(line for line in lines[2:] if line.startswith(path + " "))
        shown = [names[0], "+1"] if len(names) == 2 else [names[0]]
        assert line.split()[1 : 1 + len(shown)] == shown, line
        reduce = next(r for r in rows if r["path"] == path)["family"].endswith("_split_k_reduce")
        assert ("no loop" in line) is reduce, line


def _triton_catalog(folder, archs=("gfx942", "gfx950", "gfx1201")):
    rows = []
    for n, arch in enumerate(archs):
        (folder / arch).mkdir(parents=True)
        shutil.copy(TRITON / f"gemm_{arch}.hsaco", folder / arch / "gemm.hsaco")
        data = (folder / arch / "gemm.hsaco").read_bytes()
        rows.append(
            {
                **{column: None for column in index.COLUMNS},
                "problem": n,
                "name": "triton_gemm",
                "arch": arch,
                "flavor": "llvm23",
                "family": "triton",
                "kernel": "gemm",
                "path": f"{arch}/gemm.hsaco",
                "sha256": hashlib.sha256(data).hexdigest(),
            }
        )
    doc = {"format": index.FORMAT, "columns": list(index.COLUMNS), "kernels": rows, "errors": []}
    (folder / "index.json").write_text(json.dumps(doc))
    return rows


def test_tritons_gemm_on_gfx942_has_the_figures_issue_19_quotes(tmp_path, capsys):
    _triton_catalog(tmp_path)
    status, out, err = _isa(capsys, "--catalog", str(tmp_path), "--json")
    assert status == 0, err
    by_arch = {e["arch"]: e for e in json.loads(out)["code_objects"]}
    loop = by_arch["gfx942"]["main_loop"]
    # Issue 19: "Triton 3.9.0 spends 2.3 non-matrix instructions in its main
    # loop per 4096 MACs", and "Triton leaves 8 of 16" MFMAs as cover.
    assert round(float(loop["non_matrix_per_4096_macs"]), 1) == 2.3
    assert (loop["cover"]["count"], loop["cover"]["of"]) == (8, 16)
    # Its MFMA is 32x32x8 f16: 8192 MACs, 2 units of 4096 each.
    assert loop["matrix"]["by_mnemonic"] == [{"mnemonic": "v_mfma_f32_32x32x8_f16", "count": 16, "macs": 8192}]
    assert loop["non_matrix_per_4096_macs"] == f"{(loop['loop_instructions'] - 16) / (2 * 16):.2f}"
    for arch, entry in by_arch.items():
        # 128x128x32 blocks (app/bench/triton_compile.py) shared by its warps:
        # each wave's MACs per iteration.
        facts = json.loads((TRITON / f"gemm_{arch}.json").read_text())
        assert entry["main_loop"]["matrix"]["macs"] == 128 * 128 * 32 // facts["warps"], arch


def test_a_folder_without_an_index_is_refused(tmp_path, capsys):
    status, _, err = _isa(capsys, "--catalog", str(tmp_path))
    assert status == 2
    assert err == (
        f"rocke isa: --catalog: expected {tmp_path / 'index.json'}, got a folder without index.json; "
        "give the folder `rocke build --out` wrote\n"
    )


def test_a_missing_code_object_is_refused_naming_its_row(tmp_path, capsys):
    _triton_catalog(tmp_path)
    (tmp_path / "gfx950" / "gemm.hsaco").unlink()
    status, _, err = _isa(capsys, "--catalog", str(tmp_path))
    assert status == 2
    assert err.startswith(
        f"rocke isa: --catalog: index.json kernels[1] (problems[1] triton_gemm, gfx950, triton) names "
        f"{tmp_path / 'gfx950' / 'gemm.hsaco'}, which cannot be read (No such file or directory); "
    ), err
    assert err.count("\n") == 1


def test_a_code_object_of_another_sha256_is_refused_naming_its_row(tmp_path, capsys):
    rows = _triton_catalog(tmp_path, ("gfx942", "gfx1201"))
    file = tmp_path / "gfx1201" / "gemm.hsaco"
    file.write_bytes(file.read_bytes() + b"\0")
    status, out, err = _isa(capsys, "--catalog", str(tmp_path))
    got = hashlib.sha256(file.read_bytes()).hexdigest()
    assert (status, out) == (2, "")
    assert err.startswith(
        f"rocke isa: --catalog: index.json kernels[1] (problems[1] triton_gemm, gfx1201, triton) names {file} "
        f"with sha256 {rows[1]['sha256']}, got a file of sha256 {got}; "
    ), err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["gemm", "--catalog", "x"], "--catalog takes no FAMILY, --case, --list, --flavor, --run"),
        (["--catalog", "x", "--flavor", "llvm22"], "got --flavor; drop it"),
        ([], "expected a FAMILY (rocke isa conv.img2col --case ID) or --catalog DIR, got neither"),
    ],
)
def test_usage_errors_are_one_line_with_status_2(argv, message, capsys):
    status, out, err = _isa(capsys, *argv)
    assert (status, out) == (2, "")
    assert message in err and err.count("\n") == 1, err
