"""The ISA metrics of one kernel from llvm-objdump text: its main loop's
counts, and the whole kernel's.

    metrics.main_loop(objdump_text, "kernel_name", "gfx942")
        -> {"header": ..., "blocks": ..., "depth": ..., "instructions": ..., "matrix": ..., ...,
            "loop_instructions": ..., "non_matrix_per_4096_macs": ..., "cover": ...} or None
    metrics.whole_kernel(objdump_text, "kernel_name") -> {"instructions": ..., "matrix": ..., ...}

loops.py defines the main loop; counts.py what is counted and how; cover.py
the latency cover. The figures docs/rocke-command.md (rocke isa) defines: loop_instructions
(every instruction but the scheduling hints), matrix.macs (of one wave),
non_matrix_per_4096_macs ((loop_instructions - matrix) / (macs / 4096),
as a string of 2 decimals, "2.31": canonical JSON has no floats; None
without matrix instructions) and cover.
"""

from isa import counts, loops, objdump
from isa.cover import cover

_MAC_UNIT = 4096  # the MACs of one v_mfma_f32_16x16x16_f16, the unit of the figure


def _instructions(text, function):
    """`function`'s instructions; ObjdumpError when the text holds no such function."""
    functions = objdump.parse(text)
    if function not in functions:
        raise objdump.ObjdumpError(f"objdump: expected a function {function!r}, got {', '.join(sorted(functions))}")
    return functions[function]


def main_loop(text, function, arch):
    """Counts and figures of `function`'s main loop on `arch`, JSON-ready;
    None when it has no loop. ObjdumpError when the text holds no such function."""
    insts = _instructions(text, function)
    loop = loops.main_loop(insts, counts.kind)
    if loop is None:
        return None
    c = counts.count(loop.instructions)
    issued = c["instructions"] - c["scheduling_hints"]
    macs = c["matrix"]["macs"]
    return dict(
        header=loop.header,
        blocks=len(loop.blocks),
        depth=loop.depth,
        loops=len(loops.loops(insts)),
        loop_instructions=issued,
        non_matrix_per_4096_macs=f"{(issued - c['matrix']['count']) * _MAC_UNIT / macs:.2f}" if macs else None,
        cover=cover(loop, arch),
        **c,
    )


def whole_kernel(text, function):
    """Counts of every instruction of `function` once (static: each path of
    a branch counts, a loop's body once), JSON-ready: what a kernel without
    a loop does per lane. ObjdumpError when the text holds no such function."""
    return counts.count(_instructions(text, function))
