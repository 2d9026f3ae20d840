"""The C++ engine in process (the pybind module rocke_library_engine, what
`rocke build --engine cpp` runs) on every case of one family
(ROCKE_FAMILY_MODULE, set by library_family in library/family.bzl) and every
flavor, held to the Python engine's bytes as the family's emit action wrote
them (ROCKE_FAMILY_EMITTED: the path prefix of NAME.F.rk.json, .irs.json and
.manifest): the same .rk text and LLVM IR at the first differing line
(family.engines.compare). A case a flavor cannot express must be refused by
both engines with an ArchDomainError of the same facts: for those cases
only, the Python engine runs here, for its facts (the files hold only the
error's class)."""

import os

import rocke_library_engine
from arch.flavor_facts import FLAVORS
from family import family as families
from family import manifest
from family.engines import Emitted, case_json, compare, compare_refusals, lower_flavors
from family.texts import load_map
from lower.flavors import ArchDomainError

FAMILY = families.load(os.environ["ROCKE_FAMILY_MODULE"])
PREFIX = os.environ["ROCKE_FAMILY_EMITTED"]


def emitted(flavor):
    """(id -> .rk text, id -> LLVM IR, id -> manifest entry) of the Python emitter for `flavor`."""
    texts = [load_map(f"{PREFIX}.{flavor}.{kind}.json") for kind in ("rk", "irs")]
    return (*texts, manifest.read(f"{PREFIX}.{flavor}.manifest", manifest.EMITTED_FIX))


def cpp(case, flavor):
    try:
        return Emitted(*rocke_library_engine.emit(FAMILY.name, case_json(case), flavor))
    except ArchDomainError as e:
        return e


def test_cpp_engine_gives_the_python_emitters_bytes_on_every_case_and_flavor():
    compared = refused = 0
    for flavor in sorted(FLAVORS):
        rk, ir, entries = emitted(flavor)
        assert sorted(entries) == sorted(c.id for c in FAMILY.cases), (
            f"{flavor}: the emitted cases are not the family's"
        )
        for case in FAMILY.cases:
            made, entry = cpp(case, flavor), entries[case.id]
            if entry.error:
                compare_refusals(case.id, flavor, lower_flavors(FAMILY, case, [flavor])[flavor], made)
                refused += 1
            else:
                python = Emitted(rk[case.id], ir[case.id], entry.kernel)
                compare_refusals(case.id, flavor, python, made)
                compare(case.id, python, made)
                compared += 1
    assert compared > 0
    assert compared + refused == len(FAMILY.cases) * len(FLAVORS)
