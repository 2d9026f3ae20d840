"""Both engines on every case of one family (ROCKE_FAMILY_MODULE, set by
library_family in library/family.bzl) and every flavor, in-process through
the pybind engine: lower_family(..., engine="both") raises EngineMismatch at
the first differing line, so passing means byte-identical .rk text and LLVM
IR. A case a flavor cannot express must be refused by both engines with an
ArchDomainError of the same facts."""

import os

import pytest

import rocke_library_engine
from arch.flavor_facts import FLAVORS
from family import family as families
from family.engines import lower_family
from lower.flavors import ArchDomainError

FAMILY = families.load(os.environ["ROCKE_FAMILY_MODULE"])


def test_both_engines_agree_on_every_case_and_flavor():
    compared = refused = 0
    for case in FAMILY.cases:
        for flavor in FLAVORS:
            try:
                lower_family(FAMILY, case, flavor, engine="both", cpp=rocke_library_engine)
                compared += 1
            except ArchDomainError:
                # The C++ engine must refuse it too, with the same class, field, value and allowed values.
                with pytest.raises(ArchDomainError) as cpp:
                    lower_family(FAMILY, case, flavor, engine="cpp", cpp=rocke_library_engine)
                with pytest.raises(ArchDomainError) as py:
                    lower_family(FAMILY, case, flavor, engine="python")
                assert cpp.value.facts() == py.value.facts()
                refused += 1
    assert compared > 0
    assert compared + refused == len(FAMILY.cases) * len(FLAVORS)
