"""Natural loops and the main loop on hand-written control flow."""

from isa import counts, loops
from isa.objdump import Instruction as I


def _f(*rows):
    """Instructions 4 bytes apart from (mnemonic, target index or None)."""
    return tuple(I(4 * n, m, "", None if t is None else 4 * t) for n, (m, t) in enumerate(rows))


def test_blocks_split_at_targets_and_after_branches():
    f = _f(("s_mov_b32", None), ("s_cbranch_scc0", 3), ("v_add", None), ("s_endpgm", None))
    body, succ = loops.blocks(f)
    assert sorted(body) == [0, 8, 12]
    assert succ == {0: [8, 12], 8: [12], 12: []}


def test_a_rotated_loop_is_found_whatever_the_layout():
    # 0: entry jumps to the body's second half at 3; 1-2: first half, exit test;
    # 3-4: second half, back to 1. The header (by dominance) is 3, not 1.
    f = _f(
        ("s_branch", 3), ("v_mfma_x", None), ("s_cbranch_scc0", 5), ("v_add", None), ("s_branch", 1), ("s_endpgm", None)
    )
    (loop,) = loops.loops(f)
    assert loop.header == 12
    assert loop.blocks == (4, 12)
    assert [i.mnemonic for i in loop.instructions] == ["v_mfma_x", "s_cbranch_scc0", "v_add", "s_branch"]


def test_nesting_depth_and_innermost():
    # outer 1..6, inner 2..4 (its back edge at 4), outer back edge at 6.
    f = _f(
        ("s_mov", None),
        ("v_a", None),
        ("v_b", None),
        ("v_c", None),
        ("s_cbranch_scc1", 2),
        ("v_d", None),
        ("s_cbranch_scc1", 1),
        ("s_endpgm", None),
    )
    outer, inner = loops.loops(f)
    assert (outer.header, outer.depth) == (4, 1)
    assert (inner.header, inner.depth) == (8, 2)
    assert loops.innermost((outer, inner)) == [inner]


def test_the_main_loop_prefers_matrix_ops_then_depth_then_size():
    # Two sibling loops: 1..3 with a big body, 4..5 with one v_mfma.
    f = _f(
        ("s_mov", None),
        ("v_a", None),
        ("v_b", None),
        ("s_cbranch_scc1", 1),
        ("v_mfma_f32_16x16x16_f16", None),
        ("s_cbranch_scc1", 4),
        ("s_endpgm", None),
    )
    assert loops.main_loop(f, counts.is_matrix).header == 16
    # Without matrix ops the larger loop wins.
    assert loops.main_loop(f, lambda m: False).header == 4


def test_no_loop():
    assert loops.main_loop(_f(("s_mov", None), ("s_endpgm", None)), counts.is_matrix) is None


def test_straight_line_forward_branches_make_no_loop():
    f = _f(("s_cbranch_execz", 2), ("v_a", None), ("s_or_b64", None), ("s_endpgm", None))
    assert loops.loops(f) == ()
