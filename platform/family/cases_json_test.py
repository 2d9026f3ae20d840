"""The canonical case-list JSON: exact bytes, and a clear error for what has
no single JSON spelling. (Every real family's list is checked by its own
NAME_cases_json gate, cases_roundtrip_test.py.)"""

import dataclasses

import numpy as np
import pytest

from family import cases_json, emit
from family.family import Case, Family


@dataclasses.dataclass(frozen=True)
class ToySpec:
    size: tuple
    name: str

    def to_json(self):
        return {"size": list(self.size), "name": self.name}


def _never(*_):
    raise AssertionError("a case list needs no kernel and no numbers")


TOY = Family(
    "toy",
    (Case("b_gfx942", "gfx942", ToySpec((2, 3), 'é"\n\\')), Case("a_gfx950", "gfx950", ToySpec((1,), "x"))),
    build=_never,
    numeric_check=_never,
)


def test_the_document_is_sorted_without_whitespace_in_the_family_order():
    assert cases_json.render(TOY) == (
        '{"cases":[{"arch":"gfx942","id":"b_gfx942","spec":{"name":"é\\"\\n\\\\","size":[2,3]}},'
        '{"arch":"gfx950","id":"a_gfx950","spec":{"name":"x","size":[1]}}],"family":"toy","format":1}\n'
    )


def test_canonical_is_rfc8785_for_ints_strings_and_lists():
    assert (
        cases_json.canonical({"b": [1, -2, True, None], "a": {"z": "\x01\t\x7f", "y": 0}})
        == '{"a":{"y":0,"z":"\\u0001\\t\x7f"},"b":[1,-2,true,null]}'
    )


@pytest.mark.parametrize(
    "value,message",
    [
        (
            {"pad": (1, 1)},
            "v.pad: expected a JSON value (dict with string keys, list, str, int, bool or None), got tuple (1, 1)",
        ),
        (
            {"rtol": 0.5},
            "v.rtol: expected a JSON value (dict with string keys, list, str, int, bool or None), got float 0.5",
        ),
        (
            {"n": [1, np.int64(2)]},
            "v.n[1]: expected a JSON value (dict with string keys, list, str, int, bool or None), got int64 np.int64(2)",
        ),
        ({1: "x"}, "v: expected string keys, got 1"),
    ],
)
def test_what_has_no_single_spelling_is_refused_by_path(value, message):
    with pytest.raises(ValueError) as err:
        cases_json.canonical(value, "v")
    assert str(err.value).startswith(message), str(err.value)


def test_a_spec_without_to_json_is_named():
    fam = Family("bare", (Case("c_gfx942", "gfx942", (1, 2)),), build=None, numeric_check=None)
    with pytest.raises(
        ValueError, match=r"^family bare, case c_gfx942: expected a spec with to_json\(\) .*got a tuple"
    ):
        cases_json.render(fam)


_TOY_MODULE = """
from family.family import Case, Family


class Spec(tuple):
    def to_json(self):
        return list(self)


FAMILY = Family("toy", (Case("b_gfx942", "gfx942", Spec((2, 3))), Case("a_gfx950", "gfx950", Spec((1,)))), build=None, numeric_check=None)
"""


def test_emit_writes_the_case_list(tmp_path, monkeypatch):
    (tmp_path / "toy_family_for_emit.py").write_text(_TOY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "toy.cases.json"
    assert emit.main(["--family", "toy_family_for_emit", "--cases-json", str(out)]) == 0
    assert (
        out.read_text(encoding="utf-8")
        == '{"cases":[{"arch":"gfx942","id":"b_gfx942","spec":[2,3]},{"arch":"gfx950","id":"a_gfx950","spec":[1]}],"family":"toy","format":1}\n'
    )
    assert not list(tmp_path.glob("*.tmp"))
