"""`rocke build --verify` and `rocke verify DIR` on a small catalog (a gemm,
and a split-K convolution with its reduce): every row verified ok, the
settings in index.json, the reduce fed by the split kernel; a code object
patched on disk so that its first MFMA takes its A and B operands swapped is
named as a mismatch by `rocke verify`, which exits 1, and a split kernel so
patched makes its layer's output (the reduce's row) a mismatch too; a missing
code object or index is one line and status 2. A weight gradient the planner
splits two-stage is two rows, the split kernel and the reduce of dw, the
reduce checked on its own inputs (the chain cannot follow dw's flat
workspace)."""

import json

from app.cli import build_cmd, command_line, verify_cmd
from app.cli.inputs import toolchain_for
from conv import igemm_fwd, igemm_wgrad, split_k_reduce
from emu import emu, model
from gemm import gemm

COMMANDS = {"build": build_cmd, "verify": verify_cmd}
FAMILIES = command_line.registry(gemm, igemm_fwd, igemm_wgrad, split_k_reduce)

PROBLEMS = [
    {"op": "gemm", "name": "scores", "m": 256, "n": 192, "k": 64, "dtype": "f16", "layout_b": "col"},
    {"op": "conv_fwd", "name": "late", "n": 1, "c": 32, "k": 32, "spatial": [14, 14], "filter": [3, 3], "pad": [1, 1]},
]


def main(argv):
    return command_line.main(argv, COMMANDS, FAMILIES)


def _build(tmp_path, *verify):
    (tmp_path / "p.json").write_text(json.dumps({"problems": PROBLEMS}))
    out = tmp_path / "cat"
    argv = ["build", "--problems", str(tmp_path / "p.json"), "--arch", "gfx942", "--out", str(out), "--jobs", "1"]
    return main(argv + list(verify)), out


def test_a_verified_build_and_its_catalog_on_disk_pass(tmp_path, capsys):
    status, out = _build(tmp_path, "--verify", "2", "--verify-seed", "5")
    captured = capsys.readouterr()
    assert status == 0, captured.err
    doc = json.loads((out / "index.json").read_text())
    assert doc["verify"] == {"seed": 5, "workgroups": 2}
    assert [(r["name"], r["family"], r["verify"]["result"]) for r in doc["kernels"]] == [
        ("scores", "gemm", "ok"),
        ("late", "conv_igemm_fwd", "ok"),
        ("late", "conv_fwd_split_k_reduce", "ok"),
    ]
    # Each launch has the cost model's figures, labelled as a model in the table's header and last line.
    figures = [r["verify"]["model"] for r in doc["kernels"]]
    assert all(f["us"] > 0 and 0 < f["peak"] <= 1 and f["bound"] in model.BOUNDS for f in figures), figures
    lines = captured.out.splitlines()
    assert lines[0].split()[-7:] == ["verify", "model", "us", "of", "peak", "model", "bound"]
    assert f"modelled time {sum(f['us'] for f in figures):.1f} us in all (a model" in lines[-1]
    # The split-K layer is one check: the reduce fed by the split kernel's workspace, compared with the layer.
    assert doc["kernels"][2]["verify"]["after"] == "gfx942/late.hsaco"
    assert "after" not in doc["kernels"][1]["verify"]
    assert (
        "verified conv_igemm_fwd gfx942/late.hsaco then conv_fwd_split_k_reduce gfx942/late.reduce.hsaco "
        "(problems[1]): ok, ok" in captured.err
    )
    assert main(["verify", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:3]] == ["ok", "ok", "ok"]
    assert (
        lines[-1] == f"3 code objects of 3 rows verified in 3 launches (2 tiles each, seed 5): 0 of 3 rows wrong; {out}"
    )


def _swap_mfmas(path, kernel, every=False):
    """The code object at `path` with its first MFMA's (every MFMA's) A and B
    (SRC0 and SRC1 of the VOP3P-MAI encoding's second word) swapped. Returns
    the first MFMA as decoded before the patch."""
    data = path.read_bytes()
    program = emu.program(data, kernel, toolchain_for("llvm23"))
    mfmas = [i for i in program.instructions if i.mnemonic.startswith("v_mfma")]
    for mfma in mfmas if every else mfmas[:1]:
        first, second = (int(w, 16) for w in mfma.words[:2])
        src0, src1 = second & 0x1FF, (second >> 9) & 0x1FF
        assert src0 != src1, mfma.text  # distinct registers, or the swap changes nothing
        swapped = second & ~0x3FFFF | src0 << 9 | src1
        data = emu.patch(data, mfma.address, [first, swapped])
    path.write_bytes(data)
    return mfmas[0]


def test_a_code_object_patched_to_compute_wrong_numbers_is_named(tmp_path, capsys):
    status, out = _build(tmp_path)
    assert status == 0
    capsys.readouterr()
    row = json.loads((out / "index.json").read_text())["kernels"][0]
    mfma = _swap_mfmas(out / row["path"], row["kernel"])
    patched = emu.program((out / row["path"]).read_bytes(), row["kernel"], toolchain_for("llvm23"))
    again = next(i for i in patched.instructions if i.address == mfma.address)
    assert again.operands[1:3] == mfma.operands[2:0:-1]  # the decoder reads A and B swapped
    assert main(["verify", str(out), "--workgroups", "2"]) == 1
    captured = capsys.readouterr()
    table = captured.out.splitlines()
    assert table[0].startswith("MISMATCH ") and "problems[0] scores on gfx942, gemm" in table[0]
    assert "(its sha256 is not the index's)" in table[0]
    assert [line.split()[0] for line in table[1:3]] == ["ok", "ok"]
    assert (
        table[-1] == f"3 code objects of 3 rows verified in 3 launches (2 tiles each, seed 0): 1 of 3 rows wrong; {out}"
    )
    err = captured.err.splitlines()[-1]
    assert err.startswith("rocke verify: problems[0] scores on gfx942, gemm (gfx942/scores.hsaco)"), err
    assert "mismatch: " in err and "the first wrong element, at (" in err


def test_a_wrong_split_kernel_makes_its_layers_output_a_mismatch(tmp_path, capsys):
    """The split kernel's MFMAs patched: its partial sums are wrong, and so is the output the reduce makes of them."""
    status, out = _build(tmp_path)
    assert status == 0
    capsys.readouterr()
    row = json.loads((out / "index.json").read_text())["kernels"][1]
    assert row["family"] == "conv_igemm_fwd"
    _swap_mfmas(out / row["path"], row["kernel"], every=True)
    assert main(["verify", str(out), "--workgroups", "2"]) == 1
    captured = capsys.readouterr()
    table = captured.out.splitlines()
    assert [line.split()[0] for line in table[:3]] == ["ok", "MISMATCH", "MISMATCH"], table
    assert "problems[1] late on gfx942, conv_fwd_split_k_reduce" in table[2]
    assert "(its sha256 is not the index's)" not in table[2]  # the reduce's own code object is intact
    err = captured.err.splitlines()[-1]
    assert err.startswith(
        "rocke verify: problems[1] late on gfx942, conv_fwd_split_k_reduce (gfx942/late.reduce.hsaco): "
        "mismatch (the problem's output, fed by gfx942/late.hsaco): "
    ), err


def test_a_missing_code_object_or_index_is_one_line_and_status_2(tmp_path, capsys):
    status, out = _build(tmp_path)
    assert status == 0
    capsys.readouterr()
    (out / "gfx942" / "late.reduce.hsaco").unlink()
    assert main(["verify", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(
        "rocke verify: DIR: index.json kernels[2] (problems[1] late on gfx942, conv_fwd_split_k_reduce)"
    )
    assert "cannot be read (No such file or directory)" in err
    (out / "index.json").unlink()
    assert main(["verify", str(out)]) == 2
    assert "got a folder without index.json" in capsys.readouterr().err


def test_a_code_object_serving_two_sizes_is_verified_and_modelled_on_each(tmp_path, capsys):
    """Two GEMMs that differ only in m share one code object (m is the kernel's argument): each runs on its own."""
    (tmp_path / "p.json").write_text(json.dumps({"problems": [PROBLEMS[0], dict(PROBLEMS[0], name="wide", m=1024)]}))
    out = tmp_path / "cat"
    argv = ["build", "--problems", str(tmp_path / "p.json"), "--arch", "gfx942", "--out", str(out), "--jobs", "1"]
    assert main([*argv, "--verify", "2"]) == 0
    rows = json.loads((out / "index.json").read_text())["kernels"]
    assert rows[0]["path"] == rows[1]["path"] and rows[0]["verify"]["model"] != rows[1]["verify"]["model"]
    assert "2 verified in" in capsys.readouterr().out.splitlines()[-1]
    assert main(["verify", str(out)]) == 0
    assert "1 code object of 2 rows verified in 2 launches" in capsys.readouterr().out.splitlines()[-1]


def test_a_two_stage_weight_gradient_and_its_reduce_are_verified(tmp_path, capsys):
    # A 32 x 288 x 196 wgrad GEMM: 2 blocks of 64 x 256 on 304 CUs, split 2 ways two-stage.
    wgrad = dict(PROBLEMS[1], op="conv_wgrad", name="dw")
    (tmp_path / "p.json").write_text(json.dumps({"problems": [wgrad]}))
    out = tmp_path / "cat"
    argv = ["build", "--problems", str(tmp_path / "p.json"), "--arch", "gfx942", "--out", str(out), "--jobs", "1"]
    assert main([*argv, "--verify", "2"]) == 0, capsys.readouterr().err
    rows = json.loads((out / "index.json").read_text())["kernels"]
    assert [(r["family"], r["path"], r["verify"]["result"]) for r in rows] == [
        ("conv_igemm_wgrad", "gfx942/dw.hsaco", "ok"),
        ("conv_fwd_split_k_reduce", "gfx942/dw.reduce.hsaco", "ok"),
    ]
    assert (rows[0]["spec"]["split"], rows[0]["spec"]["mode"]) == (2, "two_stage")
    assert (rows[1]["spec"]["split_k"], rows[1]["spec"]["tensor"]) == (2, "dw")
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    assert "0 of 2 rows wrong" in capsys.readouterr().out.splitlines()[-1]
