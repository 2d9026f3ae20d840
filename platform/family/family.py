"""What a kernel family gives the gates that rocke_family creates.

A family module defines FAMILY = Family(...): its cases, how to build each
case's kernel, and how to check its numbers. The gates (emit, golden,
validity, numeric) only ever go through this.
"""

import dataclasses
import hashlib
from typing import Callable

import numpy as np

from arch import arch
from errors.errors import FieldError


class FamilyError(FieldError):
    """A case list that cannot be built from (cases_json.read), an unknown
    family, a family whose case ids repeat, or a module without a FAMILY
    (load): `field` names the part that is wrong ("case list of NAME:
    format"), with the value received and, where they are a list,
    the values allowed (errors.FieldError). The C++ engine throws
    rocke::family::FamilyError with the same facts, so the emitters' parity
    test compares them, not their words."""


class Refusal(ValueError):
    """A family cannot take a problem that is valid, and another family can.

    A family's error type subclasses Refusal as well as its spec's error
    (conv_img2col's Img2colSpecError is a conv SpecError), and build() raises
    it naming the field, the value and the family that takes it. The gates
    record it as an expected rejection, as they record ArchDomainError: the
    manifest line `reject ID arch=ARCH error=CLASS` (emit.py), and no IR.
    The C++ engine throws rocke::family::Refusal carrying the same class.
    """


@dataclasses.dataclass(frozen=True)
class Case:
    id: str  # stable and unique within the family; names golden entries
    arch: str
    spec: object


@dataclasses.dataclass(frozen=True)
class NumericCheck:
    """One numeric check: run the kernel over `grid` with `args`, then every
    args[i] for i in `expected`, as float64 after `decode`, must lie within
    expected[i] (a bound.Expected: the reference and each element's bound).
    `whole`: the grid axes whose workgroups all add to one output tile (a
    split-K kernel's slices, an atomic wgrad's contributions), which a
    sampled launch runs whole for every tile it picks (machine.pick)."""

    args: list
    grid: tuple
    expected: dict  # argument index -> bound.Expected
    decode: Callable
    whole: tuple = ()

    def check(self, what):
        """AssertionError naming `what` and the argument if any output is out of its bound (bound.Expected.check)."""
        for index, want in self.expected.items():
            want.check(self.decode(self.args[index]), f"{what}: argument {index}")


@dataclasses.dataclass(frozen=True)
class Chained:
    """A kernel's check fed by the kernel run before it for the same problem
    (Family.chain): `numeric` takes that kernel's output among its args and
    expects the problem's final answer; `workgroups` are the ones to launch
    (those reading what the first kernel's launched workgroups wrote);
    `covered`: output argument index -> the elements whose answer those
    workgroups wrote all of (the comparison is restricted to them)."""

    numeric: NumericCheck
    workgroups: list
    covered: dict


@dataclasses.dataclass(frozen=True)
class Family:
    name: str
    cases: tuple
    build: Callable  # Case -> ir Kernel
    numeric_check: Callable  # (Case, numpy Generator) -> NumericCheck
    # (Case, the args of the kernel run before it after its launch, argument index -> the elements that
    # launch wrote, numpy Generator) -> Chained, or None for a kernel whose output it cannot follow. None:
    # the family's kernels are only ever checked alone.
    chain: Callable | None = None

    def __post_init__(self):
        ids = [c.id for c in self.cases]
        if len(set(ids)) != len(ids):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            field = f"family {self.name}: cases"
            raise FamilyError(
                f"{field}: expected unique case ids, got duplicates {dup}; give each case its own id "
                "(its problem's name and its arch)",
                field,
                dup,
            )

    def numeric(self, case):
        """`case`'s NumericCheck on the numeric gate's inputs (seeded by the case's id), which every gate uses."""
        return self.numeric_check(case, np.random.default_rng(seed(case.id)))


def representatives(cases):
    """The ids of the cases whose full IR a golden keeps, in the family's order.

    `cases` are the cases one flavor emitted (its rejections left out), in
    the family's order. Every case is covered by the manifest's size and
    sha256; the kept IR is there so that a review shows what changed.

    The rule: each arch's first case is a candidate, so an arch with problems
    of its own gets them shown. Candidates with the same spec (Case.spec, the
    problem without its arch) on archs of the same generation (archs.json:
    gfx9, gfx11, gfx12, gfx1250) are one problem kind, and only the first of
    them in the family's order is kept: gfx942 and gfx950 lower the same
    problem to IR that differs in the arch's name and attributes, which would
    only repeat every diff, while another generation lowers it differently
    (matrix ops, barriers, buffer flags) and is worth its own file. A family
    whose problems all run on every arch so keeps one case per generation:
    its first problem on that generation's first arch.
    """
    first_of_arch = {}
    for case in cases:
        first_of_arch.setdefault(case.arch, case)
    kept = []
    for case in first_of_arch.values():  # in the order of each arch's first case
        kind = (case.spec, arch.get(case.arch).generation)
        if all(kind != (other.spec, arch.get(other.arch).generation) for other in kept):
            kept.append(case)
    return [case.id for case in kept]


def seed(case_id):
    """The numeric test's random seed for a case: from all of its id, so that
    two cases never share their inputs by accident (sha256: same on every
    machine, whatever the hash seed)."""
    return int.from_bytes(hashlib.sha256(case_id.encode()).digest()[:8], "little")


def load(module_name):
    """The FAMILY of a module given by import path (e.g. "conv.direct_fwd");
    FamilyError if the module defines none."""
    import importlib

    module = importlib.import_module(module_name)
    family = getattr(module, "FAMILY", None)
    if not isinstance(family, Family):
        field = f"{module_name}.FAMILY"
        got = type(family).__name__
        raise FamilyError(
            f"{field}: expected a module-level FAMILY = Family(...), got {got}; define it in {module_name} "
            "(or name the module of a family: the rocke_family's `module`)",
            field,
            got,
            ["Family"],
        )
    return family
