"""Both engines on every case of one family (ROCKE_FAMILY_MODULE, set by
library_family in library/family.bzl) and every flavor, in-process through
the pybind engine: lower_flavors(..., engine="both") raises EngineMismatch at
the first differing line, so passing means byte-identical .rk text and LLVM
IR. A case a flavor cannot express must be refused by both engines with an
ArchDomainError of the same facts."""

import os

import rocke_library_engine
from arch.flavor_facts import FLAVORS
from family import family as families
from family.engines import lower_flavors
from lower.flavors import ArchDomainError

FAMILY = families.load(os.environ["ROCKE_FAMILY_MODULE"])


def test_both_engines_agree_on_every_case_and_flavor():
    compared = refused = 0
    for case in FAMILY.cases:
        for out in lower_flavors(FAMILY, case, FLAVORS, engine="both", cpp=rocke_library_engine).values():
            if isinstance(out, ArchDomainError):
                refused += 1
            else:
                compared += 1
    assert compared > 0
    assert compared + refused == len(FAMILY.cases) * len(FLAVORS)
