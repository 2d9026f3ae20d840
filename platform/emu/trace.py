"""A launch's per-instruction trace, for the performance model (model.py):
every wave's executed instructions in issue order, the memory operations each
issued and which of them each wait retired; beside it, from the figures, the
LDS bank cycles and the global memory bytes of each instruction.

Tracing costs time, so a launch traces only when asked (launch(...,
trace=True)): each step is then wrapped to record itself, and the untraced
steps run as they always do.
"""

import dataclasses

from emu.table import BLOCK


@dataclasses.dataclass
class Trace:
    # workgroup -> wave -> [(instruction index, memory operations it issued, numbers of those it retired)];
    # a wave's operations are numbered from 0 in issue order
    workgroups: list
    lds: dict  # instruction address -> (executions, bank cycles)
    memory: dict  # instruction address -> (executions, bytes, 128-byte segments)


def _traced(step, index):
    # A step only appends to w.pending (what it issues, unnumbered, at the end)
    # or replaces the list (a wait, the end: control.retire), so the list
    # before the step is kept as it was whenever something retired.
    def run(w):
        before = w.pending
        held = len(before)
        r = step(w)
        if r == BLOCK:  # runs again when the barrier lets it; recorded then
            return r
        after = w.pending
        if after is before and len(after) == held:  # nothing issued, nothing retired: most steps
            w.trace.append((index, 0, ()))
            return r
        first = len(after)
        while first and after[first - 1].seq < 0:
            first -= 1
        for p in after[first:]:
            p.seq, w.issued = w.issued, w.issued + 1
        retired = ()
        if after is not before and held:
            still = set(map(id, after))
            retired = tuple(p.seq for p in before[:held] if id(p) not in still)
        w.trace.append((index, len(after) - first, retired))
        return r

    return run


def steps(program):
    """The program's steps, each recording itself in its wave's trace."""
    return [_traced(step, i) for i, step in enumerate(program.steps)]


def collect(workgroups, figures):
    """The Trace of a launch: `workgroups`, each its waves' traces, with the launch's Figures."""
    return Trace(
        workgroups=workgroups,
        lds={at: (row[0], row[1]) for at, row in figures.lds.items()},
        memory={at: (row[0], row[1], row[3]) for at, row in figures.memory.items()},
    )
