"""The IR's structure: values, ops, blocks and kernels.

A kernel has typed arguments, attributes and one body block. A block is a
list of ops and may have arguments (a loop body's induction variable and
carried values). An op has operands, results, attributes and regions (each a
single block). Values are compared by identity; their text names are chosen
by the printer.
"""

import dataclasses

from errors.errors import FieldError
from ir.printer import format_attr

# How deeply regions (and attribute lists) may nest: the verifier and the
# parser both hold kernels to it, so every recursive pass stays far from
# Python's recursion limit.
MAX_NESTING = 100


# VerifyError.expected's default value: the text the message shows.
SHOWN = object()


def attr_fact(value):
    """An attribute value as a VerifyError's value: its .rk spelling, which
    both engines share (repr() for what no attribute can hold)."""
    try:
        return format_attr(value)
    except ValueError:
        return repr(value)


class VerifyError(FieldError):
    """A kernel breaks an IR rule. Messages read "WHERE: expected X, got Y";
    the facts (errors.FieldError) are field WHERE and value Y: a name as it
    is, an attribute value as the .rk text spells it (attr_fact), a list as
    a list, else the text the message shows. Each engine quotes a name its
    own way in its message; the facts are what the engines must agree on."""

    @classmethod
    def expected(cls, where, what, got, value=SHOWN):
        """cls("WHERE: expected WHAT, got GOT") with field WHERE and value
        `value`; by default GOT itself if a list, else str(GOT)."""
        if value is SHOWN:
            value = got if isinstance(got, list | tuple) else str(got)
        return cls(f"{where}: expected {what}, got {got}", where, value)


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
            raise VerifyError.expected(self.name, "exactly one result", len(self.results))
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
