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


def test_a_block_ends_after_s_trap_and_falls_through():
    f = _f(("s_mov_b32", None), ("s_trap", None), ("v_add", None), ("s_endpgm", None))
    body, succ = loops.blocks(f)
    assert sorted(body) == [0, 8]
    assert succ == {0: [8], 8: []}


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


def test_the_main_loop_has_the_most_matrix_ops():
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
    assert loops.main_loop(f, counts.kind).header == 16


def test_on_a_tie_the_loop_with_fewer_instructions_but_hints_wins():
    # 1..4: one v_mfma, 2 hints and the branch (2 instructions but hints);
    # 5..7: one v_mfma, one other and the branch (3).
    f = _f(
        ("s_mov", None),
        ("v_mfma_f32_16x16x16_f16", None),
        ("s_nop", None),
        ("s_delay_alu", None),
        ("s_cbranch_scc1", 1),
        ("v_mfma_f32_16x16x16_f16", None),
        ("v_a", None),
        ("s_cbranch_scc1", 5),
        ("s_endpgm", None),
    )
    assert loops.main_loop(f, counts.kind).header == 4
    # Were the hints counted, the first would hold 4 and lose.
    assert loops.main_loop(f, lambda m: "matrix" if m.startswith("v_mfma") else None).header == 20


def test_without_matrix_ops_the_loop_with_the_most_memory_instructions_wins():
    # 1..2: a global load; 3..6: three ALU instructions; 7..9: a load and an LDS write.
    f = _f(
        ("s_mov", None),
        ("global_load_dwordx4", None),
        ("s_cbranch_scc1", 1),
        ("v_a", None),
        ("v_b", None),
        ("v_c", None),
        ("s_cbranch_scc1", 3),
        ("buffer_load_dword", None),
        ("ds_write_b128", None),
        ("s_cbranch_scc1", 7),
        ("s_endpgm", None),
    )
    assert loops.main_loop(f, counts.kind).header == 28


def test_no_loop():
    assert loops.main_loop(_f(("s_mov", None), ("s_endpgm", None)), counts.kind) is None


def test_straight_line_forward_branches_make_no_loop():
    f = _f(("s_cbranch_execz", 2), ("v_a", None), ("s_or_b64", None), ("s_endpgm", None))
    assert loops.loops(f) == ()
