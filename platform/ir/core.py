"""The IR's structure: values, ops, blocks and kernels.

A kernel has typed arguments, attributes and one body block. A block is a
list of ops and may have arguments (a loop body's induction variable and
carried values). An op has operands, results, attributes and regions (each a
single block). Values are compared by identity; their text names are chosen
by the printer.
"""

import dataclasses

# How deeply regions (and attribute lists) may nest: the verifier and the
# parser both hold kernels to it, so every recursive pass stays far from
# Python's recursion limit.
MAX_NESTING = 100


class VerifyError(ValueError):
    """A kernel breaks an IR rule. Messages read "OP: expected X, got Y"."""


class Value:
    __slots__ = ("type", "name")

    def __init__(self, type_, name=None):
        self.type = type_
        self.name = name  # kept for kernel arguments; others are numbered when printed

    def __repr__(self):
        return f"Value({self.name or id(self)}: {self.type})"


@dataclasses.dataclass(eq=False)
class Block:
    args: list = dataclasses.field(default_factory=list)
    ops: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass(eq=False)
class Op:
    name: str
    operands: tuple
    results: tuple
    attrs: dict
    regions: tuple = ()

    @property
    def result(self):
        if len(self.results) != 1:
            raise VerifyError(f"{self.name}: expected exactly one result, got {len(self.results)}")
        return self.results[0]


@dataclasses.dataclass(eq=False)
class Kernel:
    name: str
    args: list
    attrs: dict
    body: Block

    @property
    def arch(self):
        return self.attrs.get("arch")


def walk(block):
    """Every op in `block` and its nested regions, in program order."""
    for op in block.ops:
        yield op
        for region in op.regions:
            yield from walk(region)
