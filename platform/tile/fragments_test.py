"""The tile's fragment layouts (fragments.py) against AMD's own tables.

The tables (platform/interp/testdata/amd_layouts_*.json) come from AMD's
Matrix Instruction Calculator. C and D must match in every lane and element.
A and B may order K differently from the hardware, but only by one
permutation of K shared by A and B (it leaves D = A*B + C unchanged); their
M and N indices must match exactly. Last, the tile GEMM runs on an
interpreter whose lane layouts are AMD's tables rather than layouts.py.
Every form has a placement that fits its lanes and k.
"""

import numpy as np
import pytest

from arch.mma_forms import FORMS
from interp import amd_tables
from interp import interp
from interp.interp import run
from interp.layouts import NOT_IN_AMD_TABLES, Layout
from ir import mma as M
from ir import types as T
from ir.builder import KernelBuilder
from tile import fragments
from tile.fragments import BY_ID, FRAGMENTS, INPUTS
from tile.gemm import GemmConfig
from tile.gemm_example import gemm_kernel
from tile.tile import Tile

TABLES = [t for t in amd_tables.load() if (t.op, t.generation) in FRAGMENTS]


def test_every_fragment_has_an_amd_table_unless_the_layouts_lack_one():
    covered = {(t.op, t.generation) for t in TABLES}
    assert set(FRAGMENTS) - covered == set(FRAGMENTS) & NOT_IN_AMD_TABLES


def test_every_form_has_a_placement_and_the_tile_takes_every_form_of_its_inputs():
    assert set(BY_ID) == {form.layout for form in FORMS.values()}
    assert set(FRAGMENTS) == {key for key, form in FORMS.items() if form.shape.a in INPUTS} != set()


@pytest.mark.parametrize("key", sorted(FRAGMENTS), ids="/".join)
def test_placement_fits_the_forms_lanes_and_k(key):
    frag, form = FRAGMENTS[key], FORMS[key]
    assert frag.per_lane == form.fragment[0] == form.fragment[1], key
    assert frag.rows * frag.groups <= form.wave and frag.per_lane * frag.groups == form.shape.k, key


class Ints:
    """The builder calls a Fragment's `c` makes, on Python ints."""

    add = staticmethod(lambda a, b: a + b)
    mul = staticmethod(lambda a, b: a * b)
    udiv = staticmethod(lambda a, b: a // b)
    urem = staticmethod(lambda a, b: a % b)


@pytest.mark.parametrize("layout", sorted(BY_ID))
def test_c_runs_are_consecutive_rows_of_one_column(layout):
    frag = BY_ID[layout]
    key = next(k for k, form in FORMS.items() if form.layout == layout)
    n_c, wave = M.fragment_types(*key)[2].n, FORMS[key].wave
    assert n_c % frag.c_run == 0
    for lane in range(wave):
        for v in range(0, n_c, frag.c_run):
            r, c = frag.c(Ints, lane, v)
            assert [frag.c(Ints, lane, v + j) for j in range(frag.c_run)] == [(r + j, c) for j in range(frag.c_run)], (
                layout,
                lane,
                v,
            )
    if frag.c_run < n_c:  # the run is the longest: the next element leaves it
        r, c = frag.c(Ints, 0, frag.c_run - 1)
        assert frag.c(Ints, 0, frag.c_run) != (r + 1, c), layout


def tile_layout(table):
    """Run the tile's Fragment in the interpreter: per lane (row, k, then (row, col) of each C element)."""
    frag = FRAGMENTS[(table.op, table.generation)]
    n_c = M.fragment_types(table.op, table.generation)[2].n
    b = KernelBuilder("fragment", arch=table.archs[0], workgroup_size=(table.wave, 1, 1), wave_size=table.wave)
    out = b.arg("out", T.GLOBAL)
    lane = b.lane_id()
    values = [*frag.origin(b, lane), *(x for v in range(n_c) for x in frag.c(b, lane, v))]
    for i, x in enumerate(values):
        b.store(b.offset(out, b.mul(b.add(b.mul(lane, len(values)), i), 4)), x)
    got = np.zeros((table.wave, len(values)), np.int32)
    run(b.finish(), (1, 1, 1), [got])
    return got[:, 0], got[:, 1], got[:, 2:].reshape(table.wave, n_c, 2)


@pytest.mark.parametrize("table", TABLES, ids=str)
def test_c_and_d_match_amd_in_every_lane_and_element(table):
    _, _, c = tile_layout(table)
    for matrix in ("C", "D"):
        amd = np.array(table.matrices[matrix])
        wrong = [(l, v) for l, v in np.argwhere((c != amd).any(axis=2))]
        assert not wrong, f"{table} {matrix}: {len(wrong)} elements differ: " + "; ".join(
            f"lane {l} element {v}: tile {c[l, v].tolist()}, AMD {amd[l, v].tolist()}" for l, v in wrong[:4]
        )


@pytest.mark.parametrize("table", TABLES, ids=str)
def test_a_and_b_match_amd_up_to_one_shared_permutation_of_k(table):
    row, k0, _ = tile_layout(table)
    shape = M.shape(table.op)
    perm = {}  # AMD's k -> the tile's k
    for matrix in ("A", "B"):
        for l, lane in enumerate(table.matrices[matrix]):
            for v, (r, c) in enumerate(lane):
                amd_k, amd_mn = (c, r) if matrix == "A" else (r, c)
                assert amd_mn == row[l], (
                    f"{table} {matrix}: lane {l} element {v}: tile {'row' if matrix == 'A' else 'column'} {row[l]}, AMD {amd_mn}"
                )
                tile_k = int(k0[l]) + v
                assert perm.setdefault(amd_k, tile_k) == tile_k, (
                    f"{table} {matrix}: AMD k {amd_k} is tile k {perm[amd_k]} and also {tile_k} (lane {l} element {v})"
                )
    assert sorted(perm) == sorted(perm.values()) == list(range(shape.k)), (
        f"{table}: tile k over AMD k is not a permutation of 0..{shape.k - 1}: {perm}"
    )


def amd_layout(table):
    m = table.matrices
    return Layout(a=lambda l, v: m["A"][l][v], b=lambda l, v: m["B"][l][v], c=lambda l, v: m["C"][l][v])


def device(x, elem):
    """Small integers (exact in f16 and bf16) as the kernel's element type."""
    if elem is T.F16:
        return x.astype(np.float16)
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def host(x, elem):
    if elem is T.F16:
        return x.astype(np.float64)
    return (x.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


# gemm_example's output is in its input type, and fp8 cannot hold these sums
# exactly: fp8_test runs the fp8 tile GEMM (f32 out) against numpy.
GEMM_TABLES = [t for t in TABLES if M.shape(t.op).a in (T.F16, T.BF16)]


@pytest.mark.parametrize("table", GEMM_TABLES, ids=str)
@pytest.mark.parametrize("k_steps", [1, 2])  # 2: the main loop may read two mma steps' k at once
def test_tile_gemm_is_exact_on_an_interpreter_driven_by_amd_tables(table, k_steps, monkeypatch):
    monkeypatch.setitem(interp.LAYOUTS, (table.op, table.generation), amd_layout(table))
    s = M.shape(table.op)
    dtype = s.a.name
    kernel, grid = gemm_kernel(
        table.archs[0], dtype, GemmConfig(table.op, Tile(f"{s.m}x{s.n}x{s.k}", 2 * s.m, 2 * s.n, k_steps * s.k, 2, 2))
    )
    m, n, k = 37, 45, 29
    rng = np.random.default_rng(5)
    a, b = rng.integers(-2, 3, (m, k)), rng.integers(-2, 3, (k, n))  # every sum exact in f16 and bf16
    c = np.zeros((m, n), device(a, s.a).dtype)
    run(kernel, grid(m, n), [device(a, s.a), device(b, s.a), c, m, n, k])
    got = host(c, s.a)
    assert np.array_equal(got, a @ b), f"{table}: max error {np.abs(got - a @ b).max()}"


def test_a_placement_of_a_layout_without_a_c_placement_fails_naming_it(tmp_path):
    path = tmp_path / "fragments.json"
    path.write_text('{"inputs": ["f16"], "layouts": {"mfma_8x8": {"rows": 16, "groups": 4, "per_lane": 4}}}')
    with pytest.raises(
        ValueError,
        match=r"layouts\.mfma_8x8: expected a layout id of platform/arch/mma_layouts\.json \(mfma_16x16x16, .*\), got 'mfma_8x8'",
    ):
        fragments._load(str(path))
