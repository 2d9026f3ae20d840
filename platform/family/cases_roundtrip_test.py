"""The NAME_cases_json gate of one family (ROCKE_FAMILY_MODULE): the built
NAME.cases.json (ROCKE_FAMILY_CASES) is the canonical rendering of the
family's cases, and every case's spec reads back from it equal."""

import json
import os

import pytest

from family import cases_json
from family import family as families

FAMILY = families.load(os.environ["ROCKE_FAMILY_MODULE"])
with open(os.environ["ROCKE_FAMILY_CASES"], encoding="utf-8") as f:
    TEXT = f.read()
DOC = json.loads(TEXT)


def test_the_file_is_the_canonical_rendering_of_a_nonempty_list():
    assert FAMILY.cases, f"family {FAMILY.name} has no cases"
    assert TEXT == cases_json.render(FAMILY)
    assert TEXT == cases_json.canonical(DOC) + "\n"  # and canonical as it stands
    assert (DOC["family"], DOC["format"]) == (FAMILY.name, cases_json.FORMAT)
    assert [(c["id"], c["arch"]) for c in DOC["cases"]] == [(c.id, c.arch) for c in FAMILY.cases]


@pytest.mark.parametrize("index", range(len(FAMILY.cases)), ids=[c.id for c in FAMILY.cases])
def test_every_spec_reads_back_equal(index):
    case = FAMILY.cases[index]
    back = type(case.spec).from_json(DOC["cases"][index]["spec"])
    assert back == case.spec
    assert back.to_json() == DOC["cases"][index]["spec"]
