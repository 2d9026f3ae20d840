"""The C++ engine knows exactly the registered families, less those the
registry lists as PYTHON_ONLY (no C++ engine yet), and maps a bad spec to
the spec class Python raises, and an unknown family to FamilyError with the
registered families as its allowed values. Each of those families compares the two
engines on its own cases in its NAME_engines test (library_family,
library/family.bzl), so an edit to one family re-runs only its own
comparison; tools/checks/no_drop.sh fails if one is missing."""

import json

import pytest

import rocke_families
import rocke_library_engine
from conv.spec import ConvSpec, SpecError
from family.family import FamilyError


def test_cpp_engine_has_every_registered_family_but_the_python_only_ones():
    assert set(rocke_families.PYTHON_ONLY) <= set(rocke_families.FAMILIES)
    expected = [f for m, f in rocke_families.FAMILIES.items() if m not in rocke_families.PYTHON_ONLY]
    assert rocke_library_engine.families() == sorted(f.name for f in expected)


def test_a_bad_spec_through_the_cpp_engine_is_the_spec_class_with_its_facts():
    # Not a ValueError: the spec class Python raises, with the same facts.
    spec = {"n": 1, "c": 8, "k": 8, "spatial": [6, 6], "filter": [3, 3], "layout": "nhwc"}
    entry = json.dumps({"arch": "gfx942", "id": "bad", "spec": spec}, sort_keys=True)
    with pytest.raises(SpecError) as cpp:
        rocke_library_engine.emit("conv_direct_fwd", entry, "llvm22")
    with pytest.raises(SpecError) as py:
        ConvSpec.from_json(spec)
    assert type(cpp.value) is type(py.value) is SpecError
    assert cpp.value.facts() == py.value.facts() == ["SpecError", "ConvSpec.layout", "nhwc", ["NHWC", "NCHW"]]


def test_an_unknown_family_through_the_cpp_engine_is_a_family_error_naming_the_families():
    entry = json.dumps({"arch": "gfx942", "id": "x", "spec": {}})
    with pytest.raises(FamilyError) as cpp:
        rocke_library_engine.emit("conv_direct_fdw", entry, "llvm22")
    assert cpp.value.facts() == ["FamilyError", "family", "conv_direct_fdw", rocke_library_engine.families()]
    assert "did you mean conv_direct_fwd?" in str(cpp.value)
