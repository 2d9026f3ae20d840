"""The ISA metrics of one kernel: its main loop's counts from llvm-objdump text.

    metrics.main_loop(objdump_text, "kernel_name")
        -> {"header": ..., "blocks": ..., "depth": ..., "instructions": ..., "matrix": ..., ...} or None

loops.py defines the main loop; counts.py what is counted and how.
"""

from isa import counts, loops, objdump


def main_loop(text, function):
    """Counts of `function`'s main loop, JSON-ready; None when it has no loop.
    ObjdumpError when the text holds no such function."""
    functions = objdump.parse(text)
    if function not in functions:
        raise objdump.ObjdumpError(f"objdump: expected a function {function!r}, got {', '.join(sorted(functions))}")
    insts = functions[function]
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
