"""The index's formats: every column in its order, canonical bytes whatever
the order rows arrive in, nulls where a flavor reports nothing, a table a
person can read with each kernel's own time, timings in their own file, and
two kernels of one problem, arch and family refused by name."""

import csv
import hashlib
import io
import json

import pytest

from catalog import index
from catalog.kernel import FIGURES, Built

FIGS = dict(vgpr=20, agpr=0, sgpr=18, lds=0, scratch=0, vgpr_spill=0, sgpr_spill=0, occupancy=8, waves=4)


def _row(problem, arch, occupancy=8):
    built = Built(b"\x7fELF" + bytes([problem]), dict(FIGS, occupancy=occupancy))
    return index.row(
        problem,
        f"p{problem}",
        "conv_fwd",
        arch,
        "llvm23",
        "conv_img2col",
        "1 output per lane, 256 lanes",
        f"conv_img2col_p{problem}_{arch}",
        f"{arch}/p{problem}.hsaco",
        built,
        {"dtype": "f16", "filter": [3, 3]},
    )


def test_the_columns_are_the_issues_list_in_order():
    assert list(index.COLUMNS) == [
        "problem",
        "name",
        "op",
        "arch",
        "flavor",
        "family",
        "config",
        "kernel",
        "path",
        "sha256",
        "spec",
        "verify",
        "vgpr",
        "agpr",
        "sgpr",
        "lds",
        "scratch",
        "vgpr_spill",
        "sgpr_spill",
        "occupancy",
        "waves",
    ]
    assert tuple(list(index.COLUMNS)[-len(FIGURES) :]) == FIGURES


def test_a_row_carries_the_code_objects_sha256():
    row = _row(3, "gfx942")
    assert row["sha256"] == hashlib.sha256(b"\x7fELF\x03").hexdigest()


def test_json_is_the_same_bytes_whatever_the_order_rows_come_in():
    rows = [_row(p, a) for p in (2, 0, 1) for a in ("gfx950", "gfx942")]
    errors = [
        {"problem": 5, "arch": None, "message": "problems[5].op: ..."},
        {"problem": 4, "arch": "gfx942", "message": "x"},
    ]
    first = index.index_json(rows, errors)
    assert index.index_json(rows[::-1], errors[::-1]) == first
    doc = json.loads(first)
    assert doc["format"] == index.FORMAT and doc["columns"] == list(index.COLUMNS)
    assert [(r["problem"], r["arch"]) for r in doc["kernels"]] == [
        (p, a) for p in (0, 1, 2) for a in ("gfx942", "gfx950")
    ]
    assert [e["problem"] for e in doc["errors"]] == [4, 5]
    assert first.endswith(b"}\n") and b"time" not in first  # no build time: same inputs, same bytes


def test_csv_has_the_header_and_an_empty_cell_for_null():
    text = index.index_csv([_row(1, "gfx942", occupancy=None), _row(0, "gfx942")]).decode()
    lines = list(csv.reader(io.StringIO(text)))
    assert lines[0] == list(index.COLUMNS)
    assert [line[0] for line in lines[1:]] == ["0", "1"]
    assert lines[2][list(index.COLUMNS).index("occupancy")] == ""
    assert lines[1][list(index.COLUMNS).index("occupancy")] == "8"


def test_the_table_aligns_columns_and_shows_each_kernels_time():
    rows = [_row(0, "gfx942"), _row(12, "gfx942", occupancy=None)]
    text = index.table(rows, {(0, "gfx942", "conv_img2col"): 0.314, (12, "gfx942", "conv_img2col"): 1.5})
    header, first, second = text.splitlines()
    assert header.split() == [
        "#",
        "name",
        "arch",
        "family",
        "config",
        "VGPR",
        "AGPR",
        "SGPR",
        "LDS",
        "scratch",
        "spills",
        "occ",
        "waves",
        "time",
        "s",
    ]
    assert first.endswith("0.31") and second.endswith("1.50")
    assert "  0/0  " in first and "  -  " in second  # spills VGPR/SGPR; no occupancy reported
    # Right-aligned figures end in the same column.
    assert header.index("VGPR") + 4 == first.index("20") + 2 == second.index("20") + 2


def test_each_kernel_of_a_problem_shows_its_own_time():
    # A split layer: its convolution, then its reduce, on one problem and arch.
    conv = dict(_row(2, "gfx942"), family="conv_igemm_fwd")
    reduce = dict(_row(2, "gfx942"), family="conv_fwd_split_k_reduce", path="gfx942/p2.reduce.hsaco")
    seconds = {(2, "gfx942", "conv_igemm_fwd"): 0.75, (2, "gfx942", "conv_fwd_split_k_reduce"): 0.125}
    lines = index.table([conv, reduce], seconds).splitlines()[1:]
    assert [line.split()[3] for line in lines] == ["conv_igemm_fwd", "conv_fwd_split_k_reduce"]
    assert lines[0].endswith(" 0.75") and lines[1].endswith(" 0.12")
    assert index.table([conv], {}).splitlines()[1].endswith(" -")  # no time known


def test_rows_of_one_code_object_show_which_row_built_it():
    built = _row(3, "gfx942")
    same = dict(_row(7, "gfx942"), path=built["path"], kernel=built["kernel"], sha256=built["sha256"])
    seconds = {
        (3, "gfx942", "conv_img2col"): 0.5,
        (5, "gfx942", "conv_img2col"): 0.25,
        (7, "gfx942", "conv_img2col"): 0.004,
    }
    lines = index.table([same, built, _row(5, "gfx942")], seconds).splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["3", "5", "7"]
    assert lines[1].endswith("0.50") and lines[2].endswith("0.25") and lines[3].endswith("= #3")


def test_timings_are_their_own_file_with_a_key_per_kernel():
    seconds = {
        (1, "gfx942", "conv_igemm_fwd"): 0.12345,
        (1, "gfx942", "conv_fwd_split_k_reduce"): 0.05,
        (0, "gfx950", "gemm"): 2.0,
    }
    assert json.loads(index.timings_json(seconds)) == {
        "0/gfx950/gemm": 2.0,
        "1/gfx942/conv_fwd_split_k_reduce": 0.05,
        "1/gfx942/conv_igemm_fwd": 0.123,
    }
    assert index.kernel_key(_row(4, "gfx950")) == (4, "gfx950", "conv_img2col")


@pytest.mark.parametrize("output", ["json", "csv", "table"])
def test_two_kernels_of_one_problem_arch_and_family_are_refused_by_name(output):
    # A problem's kernels on one arch differ in family (a split convolution,
    # then its reduce): a second of the same family would share its key.
    first = _row(2, "gfx942")
    second = dict(_row(2, "gfx942"), path="gfx942/p2.reduce.hsaco")
    make = {
        "json": lambda rows: index.index_json(rows, []),
        "csv": index.index_csv,
        "table": lambda rows: index.table(rows, {}),
    }[output]
    make([first, dict(second, arch="gfx950"), dict(second, family="conv_fwd_split_k_reduce")])  # distinct keys
    with pytest.raises(index.DuplicateKernel) as refused:
        make([_row(1, "gfx942"), first, second])
    message = str(refused.value)
    assert "two conv_img2col kernels for problems[2] (p2) on gfx942" in message
    assert "choose distinct families" in message and "kernel_key" in message


def test_a_spec_and_a_verification_are_json_text_in_csv_and_a_column_in_the_table():
    verified = dict(_row(0, "gfx942"), verify={"result": "ok", "model": {"us": 12.345, "peak": 0.4321, "bound": "LDS"}})
    wrong = {"result": "mismatch", "argument": 2, "wrong": 3, "of": 64, "largest_error": 0.25, "first_wrong": {}}
    rows = [verified, dict(_row(1, "gfx942"), verify=wrong)]
    cells = list(csv.DictReader(io.StringIO(index.index_csv(rows).decode())))
    assert cells[0]["spec"] == '{"dtype":"f16","filter":[3,3]}'
    assert cells[0]["verify"] == '{"model":{"bound":"LDS","peak":0.4321,"us":12.345},"result":"ok"}'
    header, first, second = index.table(rows, {}).splitlines()
    assert header.split()[-7:] == ["verify", "model", "us", "of", "peak", "model", "bound"]
    # The model's figures where the row has them, "-" where it has none (a mismatch without a model).
    assert first.split()[-4:] == ["ok", "12.3", "43.2%", "LDS"] and second.split()[-5:] == [
        "MISMATCH",
        "0.25",
        "-",
        "-",
        "-",
    ]
    assert index.modelled_total(rows) == (12.345, 1)
    assert "verify" not in index.table([_row(0, "gfx942")], {}).splitlines()[0]  # unverified: no column


def test_index_json_holds_the_verification_settings_only_when_verified():
    assert "verify" not in json.loads(index.index_json([_row(0, "gfx942")], []))
    doc = json.loads(index.index_json([_row(0, "gfx942")], [], {"seed": 3, "workgroups": 4}))
    assert doc["verify"] == {"seed": 3, "workgroups": 4} and doc["kernels"][0]["verify"] is None
