"""case_archs: the list the families' cases target, and the one-line error a bad list gets."""

import json

import pytest

import case_archs
from arch import arch as archs


def test_every_listed_arch_is_a_known_arch_once():
    assert case_archs.ARCHS and set(case_archs.ARCHS) <= set(archs.ARCHS)
    assert len(set(case_archs.ARCHS)) == len(case_archs.ARCHS)


@pytest.mark.parametrize("listed", [[], ["gfx942", "gfx9999"], ["gfx942", "gfx942"]], ids=["empty", "unknown", "twice"])
def test_a_bad_list_is_refused_naming_the_file(tmp_path, listed):
    path = tmp_path / "case_archs.json"
    path.write_text(json.dumps({"archs": listed}))
    with pytest.raises(ValueError) as err:
        case_archs.load(str(path))
    assert str(err.value) == (
        f"{path}: archs: expected distinct archs of {', '.join(archs.ARCHS)}, got {listed!r}; fix the list"
    )
