"""Basic blocks, natural loops and the main loop of one disassembled function.

Blocks: a block starts at the function's first instruction, at every branch
target and after every branch, end of program or s_trap; it ends at the next
start.
Edges: a conditional branch (s_cbranch_*) goes to its target and falls
through; s_branch goes to its target only; s_endpgm* and s_setpc_b64 end the
flow (rocke kernels make no calls); any other instruction falls through, s_trap
included: a trap handler may resume the wave, and loop-metrics.md splits there
so that a guarded trap is a block of its own.

Loops are natural loops: an edge u -> h is a back edge when h dominates u
(every path from the entry to u passes h); the loop of header h is h plus
every block that reaches a back edge's source without passing h, over all of
h's back edges. This holds whatever the block layout (LLVM often rotates a
loop so that its entry jumps into the middle). The AMDGPU backend structurizes
control flow, so every cycle has such a header.

The main loop is the innermost loop (one that contains no other loop) holding
the most matrix instructions; on a tie, the one with fewer instructions (but
scheduling hints): the fast path, not a guarded tail. When no loop holds a
matrix instruction, the innermost loop with the most vector-memory and LDS
instructions, then the fewer instructions. Last, the lowest header address.
What is which: counts.kind.
"""

import collections
import dataclasses

_ENDS = ("s_endpgm", "s_setpc_b64")
_SPLITS_AFTER = ("s_trap",)


@dataclasses.dataclass(frozen=True)
class Loop:
    header: int  # offset of the header block's first instruction
    blocks: tuple  # offsets of the first instructions of its blocks, sorted
    depth: int  # 1 for an outermost loop
    instructions: tuple  # every instruction of its blocks, by offset


def _ends_flow(inst):
    return inst.mnemonic.startswith("s_endpgm") or inst.mnemonic in _ENDS


def blocks(insts):
    """{start offset: tuple of instructions}, and {start offset: successor starts}."""
    starts = {insts[0].offset} if insts else set()
    for i, inst in enumerate(insts):
        if inst.is_branch:
            starts.add(inst.target)
        if (inst.is_branch or _ends_flow(inst) or inst.mnemonic in _SPLITS_AFTER) and i + 1 < len(insts):
            starts.add(insts[i + 1].offset)
    known = {inst.offset for inst in insts}
    stray = sorted(starts - known)
    if stray:
        raise ValueError(f"loops: expected branch targets at instruction boundaries, got offset {stray[0]:#x}")
    body, order = {}, []
    for inst in insts:
        if inst.offset in starts:
            order.append(inst.offset)
            body[inst.offset] = []
        body[order[-1]].append(inst)
    succ = {}
    for i, start in enumerate(order):
        last = body[start][-1]
        nxt = [order[i + 1]] if i + 1 < len(order) else []
        if last.mnemonic == "s_branch":
            succ[start] = [last.target]
        elif last.is_branch:
            succ[start] = sorted({last.target, *nxt})
        elif _ends_flow(last):
            succ[start] = []
        else:
            succ[start] = nxt
    return {s: tuple(b) for s, b in body.items()}, succ


def _dominators(entry, succ):
    order, seen = [], set()

    def visit(n):  # iterative DFS for a reverse post-order
        stack = [(n, iter(succ[n]))]
        seen.add(n)
        while stack:
            node, it = stack[-1]
            child = next(it, None)
            if child is None:
                order.append(node)
                stack.pop()
            elif child not in seen:
                seen.add(child)
                stack.append((child, iter(succ[child])))

    visit(entry)
    rpo = order[::-1]
    preds = {n: [p for p in rpo if n in succ[p]] for n in rpo}
    dom = {n: set(rpo) for n in rpo}
    dom[entry] = {entry}
    changed = True
    while changed:
        changed = False
        for n in rpo[1:]:
            new = {n} | set.intersection(*(dom[p] for p in preds[n]))
            if new != dom[n]:
                dom[n], changed = new, True
    return dom, preds


def loops(insts):
    """Every natural loop of the function, outermost first, then by header."""
    if not insts:
        return ()
    body, succ = blocks(insts)
    entry = insts[0].offset
    dom, preds = _dominators(entry, succ)
    members = {}
    for u in dom:
        for h in succ[u]:
            if h in dom.get(u, ()):
                loop = members.setdefault(h, {h})
                stack = [u]
                while stack:
                    n = stack.pop()
                    if n not in loop:
                        loop.add(n)
                        stack.extend(preds[n])
    found = []
    for h, nodes in members.items():
        depth = sum(1 for other in members.values() if nodes <= other)
        insts_of = tuple(i for start in sorted(nodes) for i in body[start])
        found.append(Loop(h, tuple(sorted(nodes)), depth, insts_of))
    return tuple(sorted(found, key=lambda lp: (lp.depth, lp.header)))


def innermost(all_loops):
    return [lp for lp in all_loops if not any(o is not lp and set(o.blocks) < set(lp.blocks) for o in all_loops)]


def main_loop(insts, kind):
    """The main loop (see the module doc), or None when the function has no loop.
    `kind(mnemonic)` is "matrix", "memory" (vector memory or LDS), "hint" or None."""
    candidates = innermost(loops(insts))
    if not candidates:
        return None
    tally = {}
    for lp in candidates:
        kinds = collections.Counter(kind(i.mnemonic) for i in lp.instructions)
        tally[lp.header] = (kinds["matrix"], kinds["memory"], len(lp.instructions) - kinds["hint"])
    any_matrix = any(matrix for matrix, _, _ in tally.values())

    def rank(lp):
        matrix, memory, size = tally[lp.header]
        return (-matrix, 0 if any_matrix else -memory, size, lp.header)

    return min(candidates, key=rank)
