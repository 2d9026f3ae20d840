"""What a kernel family gives the gates that rocke_family creates.

A family module defines FAMILY = Family(...): its cases, how to build each
case's kernel, and how to check its numbers. The gates (emit, golden,
validity, numeric) only ever go through this.
"""

import dataclasses
from typing import Callable


@dataclasses.dataclass(frozen=True)
class Case:
    id: str  # stable and unique within the family; names golden entries
    arch: str
    spec: object


@dataclasses.dataclass(frozen=True)
class Problem:
    """One numeric check: run the kernel over `grid` with `args`, then every
    args[i] for i in `expected` must match expected[i] (as float64 after
    `decode`) within rtol/atol."""

    args: list
    grid: tuple
    expected: dict
    decode: Callable
    rtol: float
    atol: float


@dataclasses.dataclass(frozen=True)
class Family:
    name: str
    cases: tuple
    build: Callable  # Case -> ir Kernel
    problem: Callable  # (Case, numpy Generator) -> Problem

    def __post_init__(self):
        ids = [c.id for c in self.cases]
        if len(set(ids)) != len(ids):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"family {self.name}: expected unique case ids, got duplicates {dup}")


def load(module_name):
    """The FAMILY of a module given by import path (e.g. "conv.direct_fwd")."""
    import importlib

    module = importlib.import_module(module_name)
    family = getattr(module, "FAMILY", None)
    if not isinstance(family, Family):
        raise ValueError(f"{module_name}: expected a module-level FAMILY = Family(...), got {type(family).__name__}")
    return family
