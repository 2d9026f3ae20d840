"""Latency cover of a main loop's global loads (docs/rocke-command.md): for
each global or buffer load of the loop, the matrix instructions issued
between it and the first wait that retires it.

    cover.cover(loop, "gfx942")
        -> {"count": 2, "of": 32, "load": 420, "loads": [{"offset": 404, "count": 4}, {"offset": 420, "count": 2}]}

The loop is followed from its header in address order, wrapping into the
next iteration, for at most one full iteration (a load that no wait retires
within it is covered by every matrix instruction of the iteration). A wait
for N (`s_waitcnt vmcnt(N)`, `s_waitcnt_vmcnt null, N`, gfx12's
`s_wait_loadcnt N` or the loadcnt field of `s_wait_loadcnt_dscnt`) retires a
load once at least N counted operations have issued after it. What the
counter counts is the arch generation's: on gfx9 vmcnt counts every vector
memory operation (loads, stores, atomics); from gfx10 on stores have a
counter of their own, and vmcnt (loadcnt on gfx12) counts loads.

The kernel's cover is the least count over its loads ("loads": each load's
offset and count, in the walk's order), of the iteration's matrix
instructions; "load" is the offset of the first load that has it. None when
the loop has no global load.
"""

import re

from arch import arch
from isa import counts

# What a load wait's counter counts: loads (of any address space but LDS),
# or those and every other vector memory operation.
_LOAD = re.compile(r"^(global|buffer|flat|scratch|tbuffer)_load")
_VECTOR_MEMORY = re.compile(r"^(global|buffer|flat|scratch|tbuffer)_(load|store|atomic)")

# Generation -> whether stores and atomics count toward the counter a load
# wait reads (AMD's ISA manuals: gfx9's vmcnt; gfx10 and 11 split vscnt off;
# gfx12 names the counters loadcnt and storecnt).
_STORES_COUNT = {"gfx9": True, "gfx11": False, "gfx12": False, "gfx1250": False}


def _counted(arch_name):
    generation = arch.get(arch_name).generation
    if generation not in _STORES_COUNT:
        raise ValueError(
            f"cover: expected an arch of generation {', '.join(sorted(_STORES_COUNT))}, got {arch_name} "
            f"({generation}); add its load counter's rule to _STORES_COUNT in platform/isa/cover.py"
        )
    return _VECTOR_MEMORY if _STORES_COUNT[generation] else _LOAD


def walk(loop):
    """The loop's instructions in address order from its header."""
    insts = loop.instructions
    start = next(i for i, inst in enumerate(insts) if inst.offset == loop.header)
    return insts[start:] + insts[:start]


def cover(loop, arch_name):
    """The cover of Loop `loop` (loops.py) on `arch_name`, JSON-ready (see the module doc)."""
    counted = _counted(arch_name)
    insts = walk(loop)
    loads = []
    for at, load in enumerate(insts):
        if not counts.is_global_load(load.mnemonic):
            continue
        later = matrix = 0
        for step in range(1, len(insts)):
            inst = insts[(at + step) % len(insts)]
            wait = counts.vm_wait(inst.mnemonic, inst.operands)
            if wait is not None and later >= wait:
                break
            later += bool(counted.match(inst.mnemonic))
            matrix += counts.is_matrix(inst.mnemonic)
        loads.append({"offset": load.offset, "count": matrix})
    if not loads:
        return None
    worst = min(loads, key=lambda load: load["count"])
    total = sum(1 for i in insts if counts.is_matrix(i.mnemonic))
    return {"count": worst["count"], "of": total, "load": worst["offset"], "loads": loads}
