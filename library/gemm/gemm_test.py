"""The gemm family's cases, tiles and kernels: what the issue asks them to
cover, the errors a user can cause, and that the numeric check can fail."""

import json

import numpy as np
import pytest

from family import family as families
from gemm import tiles
from gemm.gemm import FAMILY, build, edge_units, numeric_check
from gemm.spec import GemmSpec, SpecError
from interp.interp import run
from ir.core import walk

CASES = {c.id: c for c in FAMILY.cases}
ARCHS = {"gfx942", "gfx950", "gfx1201", "gfx1250"}


@pytest.mark.parametrize("arch,waves", [("gfx942", 4), ("gfx950", 4), ("gfx1201", 8)])
def test_the_128x128x32_cases(arch, waves):
    case = CASES[f"gemm_f16_128x128x32_{arch}"]
    s = case.spec
    assert (case.arch, s.dtype, s.out, s.tile.block_m, s.tile.block_n, s.tile.block_k, s.tile.waves) == (
        arch,
        "f16",
        "f16",
        128,
        128,
        32,
        waves,
    )
    assert build(case).attrs["workgroup_size"] == [waves * (64 if arch.startswith("gfx9") else 32), 1, 1]


def test_coverage_archs_layouts_outputs_bias_edges_and_fp8():
    specs = [c.spec for c in FAMILY.cases]
    assert {c.arch for c in FAMILY.cases} == ARCHS
    for arch in ARCHS:
        mine = [c.spec for c in FAMILY.cases if c.arch == arch]
        assert {(s.layout_a, s.layout_b) for s in mine} == {
            ("row", "row"),
            ("col", "row"),
            ("row", "col"),
            ("col", "col"),
        }, arch
        assert {s.out for s in mine} == {"f16", "bf16", "f32"} and any(s.bias for s in mine), arch
        for dim in ("m", "n", "k"):  # an edge tile in each dimension, on each arch
            block = {"m": "block_m", "n": "block_n", "k": "block_k"}[dim]
            assert any(getattr(s, dim) % getattr(s.tile, block) for s in mine), (arch, dim)
        # Edge tiles by 16-byte units (gemm.edge_units) with k a multiple of 8 f16/bf16 and not (the
        # run-time fallback), and by elements where a problem has whole blocks too; m = 1.
        assert {s.k % 8 == 0 for s in mine if edge_units(s) and s.dtype != "fp8"} == {True, False}, arch
        assert any(not edge_units(s) and (s.m % s.tile.block_m or s.n % s.tile.block_n) for s in mine), arch
        assert any(s.m == 1 for s in mine), arch
        # A block wholly inside C (the fast loop and vector stores) with a k tail, with bias, and in each layout.
        whole = [s for s in mine if s.m >= s.tile.block_m and s.n >= s.tile.block_n]
        assert any(s.k % s.tile.block_k and s.bias for s in whole), arch
        assert {s.layout_a for s in whole} == {s.layout_b for s in whole} == {"row", "col"}, arch
    assert {c.arch for c in FAMILY.cases if c.spec.dtype == "fp8"} == {"gfx950"}
    assert {s.dtype for s in specs} == {"f16", "bf16", "fp8"}
    assert any(s.grid()[0] > 1 for s in specs) and any(s.grid()[1] > 1 for s in specs)


def test_every_case_has_its_archs_tile():
    for case in FAMILY.cases:
        assert case.spec.tile == tiles.TILES[(case.arch, case.spec.dtype)], case.id


def _unit_loads(kernel):
    """The kernel's 16-byte buffer loads: the guarded loop's units (the epilogue's are narrower)."""
    return [op for op in walk(kernel.body) if op.name == "buffer.load" and op.results[0].type.nbytes == 16]


@pytest.mark.parametrize(
    "name,picked",
    [
        ("gemm_f16_m1_bcol_bias", True),  # m = 1: narrower than a block, every block an edge one
        ("gemm_bf16_acol_bcol_bias_f32", True),  # 64 x 50, both narrower
        ("gemm_f16_128x128x32", False),  # one whole block
        ("gemm_f16_acol_bias", False),  # 200 x 256: edge blocks beside whole ones
    ],
)
def test_edge_units_only_where_every_block_is_an_edge_one(name, picked):
    assert edge_units(CASES[f"{name}_gfx942"].spec) is picked


def test_edge_tiles_by_16_byte_units():
    """m = 1 (every block an edge one): the guarded loop reads A and B by
    16-byte buffer loads (copy.TileCopy.guarded), the element loop kept
    behind them for a k that is not a multiple of 8. A problem with whole
    blocks keeps the element loop alone."""
    case = CASES["gemm_f16_m1_bcol_bias_gfx942"]
    kernel = build(case)
    t, threads = case.spec.tile, kernel.attrs["workgroup_size"][0]
    units = (t.block_m + t.block_n) * t.block_k // 8  # 8 f16 a unit, A's and B's
    assert len(_unit_loads(kernel)) == units // threads
    assert _unit_loads(build(CASES["gemm_f16_acol_bias_gfx942"])) == []


def test_kernel_name_and_arguments():
    kernel = build(CASES["gemm_f16_acol_bias_gfx942"])
    assert kernel.name == "gemm_gemm_f16_acol_bias_gfx942"
    assert [a.name for a in kernel.args] == ["a", "b", "c", "bias", "m", "n", "k"]
    assert [a.name for a in build(CASES["gemm_bf16_edge_f32_gfx950"]).args] == ["a", "b", "c", "m", "n", "k"]


def test_unknown_arch_and_an_op_the_arch_lacks():
    with pytest.raises(
        tiles.TileError,
        match=r"expected an arch and input type with a tile \(gfx942 f16, gfx942 bf16, gfx950 f16, .*\), got gfx90a f16; add a row",
    ):
        tiles.spec_for("gfx90a", 16, 16, 16, "f16", "f16")
    with pytest.raises(tiles.TileError, match=r"got gfx942 fp8; add a row"):
        tiles.spec_for("gfx942", 16, 16, 16, "fp8", "f32")
    fp8 = CASES["gemm_fp8_f32_gfx950"]
    with pytest.raises(
        SpecError,
        match=r"GemmSpec.tile.mma: expected a matrix-core shape gfx942 has for fp8 inputs \(none\), got '16x16x32'; take gfx942's tile from library/gemm/tiles\.json",
    ):
        build(families.Case("x", "gfx942", fp8.spec))
    with pytest.raises(SpecError, match=r"gfx942 has for f16 inputs \(16x16x16, 32x32x8\), got '32x32x16'"):
        build(families.Case("x", "gfx942", CASES["gemm_f16_128x128x32_gfx950"].spec))


def _run(case, args_from):
    """The case's kernel run on the problem of case `args_from`; (got, want, problem)."""
    p = numeric_check(args_from, np.random.default_rng(1))
    run(build(case), p.grid, p.args)
    return p.decode(p.args[2]), p.expected[2], p


def test_the_numeric_check_sees_a_wrong_layout():
    # The col-major-A kernel fed the row-major A of the same (square A) problem computes something else.
    square = {**CASES["gemm_f16_acol_bias_gfx942"].spec.to_json(), "m": 64, "k": 64}
    row = families.Case("row", "gfx942", GemmSpec.from_json({**square, "layout_a": "row"}))
    col = families.Case("col", "gfx942", GemmSpec.from_json({**square, "layout_a": "col"}))
    got, want, p = _run(col, row)
    assert want.misses(got).any()
    got, want, p = _run(row, row)
    want.check(got, "the kernel's output")


def test_relu_clips_some_outputs_and_keeps_others():
    got, want, p = _run(CASES["gemm_bf16_acol_bcol_bias_f32_gfx1201"], CASES["gemm_bf16_acol_bcol_bias_f32_gfx1201"])
    want.check(got, "the kernel's output")
    assert (want.values == 0).mean() > 0.2 and (want.values > 0).mean() > 0.2


def test_unwritten_outputs_fail_the_check():
    case = CASES["gemm_f16_bcol_bf16_gfx942"]
    p = numeric_check(case, np.random.default_rng(1))
    assert np.isnan(p.decode(p.args[2])).all()  # the output starts as NaN of its type


def test_a_second_row_for_an_arch_and_input_type_fails_naming_it(tmp_path):
    row = {
        "arch": "gfx942",
        "dtype": "f16",
        "mma": "16x16x16",
        "block_m": 64,
        "block_n": 64,
        "block_k": 16,
        "waves_m": 2,
        "waves_n": 2,
    }
    path = tmp_path / "tiles.json"
    path.write_text(json.dumps({"tiles": [row, row]}))
    with pytest.raises(ValueError, match="expected one row per arch and input type, got a second gfx942 f16"):
        tiles._load(str(path))


def test_a_row_that_is_not_a_tile_fails_naming_its_field(tmp_path):
    row = {"arch": "gfx942", "dtype": "f16", "mma": "16x16x16", "block_m": 64, "block_n": 64, "block_k": 16}
    path = tmp_path / "tiles.json"
    path.write_text(
        json.dumps(
            {"tiles": [{**row, "waves_m": 2, "waves_n": 2}, {**row, "dtype": "bf16", "waves_m": 0, "waves_n": 1}]}
        )
    )
    with pytest.raises(ValueError, match=r"tiles\.json: tiles\[1\]\.waves_m: expected a positive int, got 0$"):
        tiles._load(str(path))
