"""The ISA metrics of one kernel from llvm-objdump text: its main loop's
counts, and the whole kernel's.

    metrics.main_loop(objdump_text, "kernel_name")
        -> {"header": ..., "blocks": ..., "depth": ..., "instructions": ..., "matrix": ..., ...} or None
    metrics.whole_kernel(objdump_text, "kernel_name") -> {"instructions": ..., "matrix": ..., ...}

loops.py defines the main loop; counts.py what is counted and how.
"""

from isa import counts, loops, objdump


def _instructions(text, function):
    """`function`'s instructions; ObjdumpError when the text holds no such function."""
    functions = objdump.parse(text)
    if function not in functions:
        raise objdump.ObjdumpError(f"objdump: expected a function {function!r}, got {', '.join(sorted(functions))}")
    return functions[function]


def main_loop(text, function):
    """Counts of `function`'s main loop, JSON-ready; None when it has no loop.
    ObjdumpError when the text holds no such function."""
    insts = _instructions(text, function)
    loop = loops.main_loop(insts, counts.is_matrix)
    if loop is None:
        return None
    return dict(
        header=loop.header,
        blocks=len(loop.blocks),
        depth=loop.depth,
        loops=len(loops.loops(insts)),
        **counts.count(loop.instructions),
    )


def whole_kernel(text, function):
    """Counts of every instruction of `function` once (static: each path of
    a branch counts, a loop's body once), JSON-ready: what a kernel without
    a loop does per lane. ObjdumpError when the text holds no such function."""
    return counts.count(_instructions(text, function))
