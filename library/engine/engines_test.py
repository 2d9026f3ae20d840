"""Both engines on every case of every registered family and every flavor:
lower_family(..., engine="both") raises EngineMismatch at the first
differing line, so passing means byte-identical .rk text and LLVM IR. The
C++ engine must also know exactly the registered families, less those the
registry lists as PYTHON_ONLY (no C++ engine yet)."""

import pytest

import rocke_families
import rocke_library_engine
from arch.flavor_facts import FLAVORS
from family.engines import lower_family
from lower.flavors import ArchDomainError

FAMILIES = [fam for module, fam in rocke_families.FAMILIES.items() if module not in rocke_families.PYTHON_ONLY]


def test_cpp_engine_has_every_registered_family_but_the_python_only_ones():
    assert set(rocke_families.PYTHON_ONLY) <= set(rocke_families.FAMILIES)
    assert rocke_library_engine.families() == sorted(f.name for f in FAMILIES)


@pytest.mark.parametrize("fam", FAMILIES, ids=lambda f: f.name)
def test_both_engines_agree_on_every_case_and_flavor(fam):
    compared = refused = 0
    for case in fam.cases:
        for flavor in FLAVORS:
            try:
                lower_family(fam, case, flavor, engine="both", cpp=rocke_library_engine)
                compared += 1
            except ArchDomainError:
                # The C++ engine must refuse it too, with the same class, field, value and allowed values.
                with pytest.raises(ArchDomainError) as cpp:
                    lower_family(fam, case, flavor, engine="cpp", cpp=rocke_library_engine)
                with pytest.raises(ArchDomainError) as py:
                    lower_family(fam, case, flavor, engine="python")
                assert cpp.value.facts() == py.value.facts()
                refused += 1
    assert compared > 0
    assert compared + refused == len(fam.cases) * len(FLAVORS)


def test_a_familys_refusal_is_its_own_class_and_facts_in_both_engines():
    # A grouped layer: conv_img2col refuses it (conv.img2col.Img2colSpecError,
    # through the engine's error mapping for C++), naming groups in each engine's words.
    from conv import img2col
    from conv.spec import ConvSpec
    from family.family import Case

    case = Case("g4_gfx942", "gfx942", ConvSpec(1, 8, 8, (6, 6), (3, 3), groups=4))
    got = {}
    for engine in ("python", "cpp"):
        with pytest.raises(img2col.Img2colSpecError) as err:
            lower_family(img2col.FAMILY, case, "llvm22", engine=engine, cpp=rocke_library_engine)
        assert "groups" in str(err.value) and "\n" not in str(err.value), engine
        got[engine] = (type(err.value), err.value.facts())
    assert got["cpp"] == got["python"] == (img2col.Img2colSpecError, ["Img2colSpecError", "ConvSpec.groups", 4, [1]])


def test_a_bad_spec_through_the_cpp_engine_is_the_spec_class_with_its_facts():
    # Not a ValueError: the spec class Python raises, with the same facts.
    import json

    from conv.spec import ConvSpec, SpecError

    spec = {"n": 1, "c": 8, "k": 8, "spatial": [6, 6], "filter": [3, 3], "layout": "nhwc"}
    entry = json.dumps({"arch": "gfx942", "id": "bad", "spec": spec}, sort_keys=True)
    with pytest.raises(SpecError) as cpp:
        rocke_library_engine.emit("conv_direct_fwd", entry, "llvm22")
    with pytest.raises(SpecError) as py:
        ConvSpec.from_json(spec)
    assert type(cpp.value) is type(py.value) is SpecError
    assert cpp.value.facts() == py.value.facts() == ["SpecError", "ConvSpec.layout", "nhwc", ["NHWC", "NCHW"]]
