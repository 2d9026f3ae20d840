"""Hypothesis strategies: kernel_gen's random kernels, and ways to break them."""

import dataclasses

from hypothesis import strategies as st

from ir import kernel_gen
from ir import types as T
from ir.core import Op, Value, walk


class _Draws:
    """kernel_gen's choices, drawn through hypothesis so that a failure shrinks."""

    def __init__(self, draw):
        self.draw = draw

    def choice(self, seq):
        return seq[self.draw(st.integers(0, len(seq) - 1))]

    def integer(self, lo, hi):
        return self.draw(st.integers(lo, hi))

    def chance(self, p):
        # Shrinks towards 0, that is towards False: fewer faults, fewer ops.
        return self.draw(st.integers(0, 999)) >= round(1000 * (1 - p))


@st.composite
def cases(draw, faults=0.05):
    """A kernel_gen.Case: a verified kernel, or the VerifyError of a faulty one."""
    return kernel_gen.generate(_Draws(draw), faults)


def kernels():
    """A random kernel that verifies."""
    return cases(faults=0).map(lambda case: case.kernel)


# Each mutation turns a verified kernel into one that must fail verification.
def _rename_op(kernel, op, block):
    block.ops[block.ops.index(op)] = dataclasses.replace(op, name="bogus." + op.name)


def _wrong_result_type(kernel, op, block):
    # A resource where an op makes anything else, a global pointer where it
    # makes a resource: no op's rule allows either swap.
    t = T.GLOBAL if op.results[0].type is T.BUFFER else T.BUFFER
    block.ops[block.ops.index(op)] = dataclasses.replace(op, results=(Value(t),) + op.results[1:])


def _bad_wave_size(kernel, op, block):
    kernel.attrs["wave_size"] = 48


def _use_undefined(kernel, op, block):
    if op.operands:
        stray = Value(op.operands[0].type)
        block.ops[block.ops.index(op)] = dataclasses.replace(op, operands=(stray,) + op.operands[1:])
    else:
        block.ops.insert(0, Op("arith.add", (Value(T.I32), Value(T.I32)), (Value(T.I32),), {}))


def _extra_attribute(kernel, op, block):
    op.attrs["bogus"] = 1


MUTATIONS = {
    "rename_op": _rename_op,
    "wrong_result_type": _wrong_result_type,
    "bad_wave_size": _bad_wave_size,
    "use_undefined": _use_undefined,
    "extra_attribute": _extra_attribute,
}


def blocks_of(kernel):
    yield kernel.body
    for op in walk(kernel.body):
        yield from op.regions


@st.composite
def malformed_kernels(draw):
    """(kernel, mutation name): a random kernel broken by one mutation."""
    kernel = draw(kernels())
    candidates = [
        (op, blk) for blk in blocks_of(kernel) for op in blk.ops if op.results and op.name not in ("scf.for", "scf.if")
    ]
    name = draw(st.sampled_from(sorted(MUTATIONS)))
    if not candidates:
        name = "bad_wave_size"
        op, blk = None, None
    else:
        op, blk = draw(st.sampled_from(candidates))
    MUTATIONS[name](kernel, op, blk)
    return kernel, name
