"""catalog_loops.py's table, on hand-made `rocke isa --json` code objects."""

import json

import pytest

from tools.bench import catalog_loops


def _co(family, arch, names, per_4096, cover=(4, 8), matrix=8, vgpr=90, occupancy=5, spill=0):
    loop = {
        "matrix": {"count": matrix},
        "cover": {"count": cover[0], "of": cover[1]},
        "non_matrix_per_4096_macs": f"{per_4096:.2f}",
    }
    resources = {"vgpr": vgpr, "occupancy": occupancy, "vgpr_spill": spill, "sgpr_spill": 0}
    return {"family": family, "arch": arch, "names": names, "main_loop": loop, "resources": resources}


def _row(text, first_two):
    rows = [line for line in text.splitlines() if line.startswith(f"| {first_two[0]} | {first_two[1]} |")]
    assert len(rows) == 1, text
    return [cell.strip() for cell in rows[0].strip("|").split("|")]


def test_a_row_takes_the_median_the_cover_and_the_ranges_of_its_matrix_loops():
    cos = [
        _co("conv_igemm_fwd", "gfx942", ["res2a"], 1.0, cover=(8, 32), vgpr=80, occupancy=5),
        _co("conv_igemm_fwd", "gfx942", ["res3a"], 6.0, cover=(16, 32), vgpr=96, occupancy=4),
        _co("conv_igemm_fwd", "gfx942", ["res4a"], 2.0, cover=(4, 32), vgpr=84, occupancy=5, spill=2),
        _co("conv_igemm_fwd", "gfx942", ["res5a"], 9.0, matrix=0),  # no matrix loop: counted, not measured
    ]
    row = _row(catalog_loops.table(cos), ("conv_igemm_fwd", "gfx942"))
    # measured, cover >= 1/4 (8 and 16 of 32; 4 of 32 is not), worst, median of 1, 6, 2 (mean 3), goal 2.5, spills, ranges
    assert row[2:] == ["3 of 4", "2", "4 of 32 (res4a)", "2.00", "<= 2.5: met", "1", "80-96", "4-5"]


def test_conv1_is_its_familys_stem_row_with_the_stem_goal():
    cos = [
        _co("conv_igemm_fwd", "gfx1201", ["conv1"], 9.5, cover=(0, 16)),
        _co("conv_igemm_fwd", "gfx1201", ["res2a"], 5.0),
    ]
    text = catalog_loops.table(cos)
    assert _row(text, ("conv_igemm_fwd (conv1)", "gfx1201"))[2:7] == [
        "1 of 1",
        "0",
        "0 of 16 (conv1)",
        "9.50",
        "<= 8: missed",
    ]
    assert _row(text, ("conv_igemm_fwd", "gfx1201"))[5:7] == ["5.00", "<= 6: met"]


def test_a_family_without_a_matrix_loop_has_no_row_and_no_goal_leaves_the_cell_empty():
    cos = [
        _co("conv_fwd_split_k_reduce", "gfx942", ["res2a"], 0.0, matrix=0),
        _co("conv_igemm_dgrad", "gfx1201", ["res2a"], 7.0),
    ]
    text = catalog_loops.table(cos)
    assert "split_k_reduce" not in text
    assert _row(text, ("conv_igemm_dgrad", "gfx1201"))[6] == ""


def test_a_file_that_is_not_isa_json_is_refused_by_name(tmp_path, capsys):
    bad = tmp_path / "catalog.json"
    bad.write_text(json.dumps({"rows": []}))
    assert catalog_loops.main([str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"catalog_loops: {bad}: expected `rocke isa --catalog DIR --json` output, got KeyError" in err
    with pytest.raises(catalog_loops.InputError, match="got FileNotFoundError"):
        catalog_loops.load(str(tmp_path / "missing.json"))
