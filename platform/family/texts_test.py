"""Where two emitted texts first differ, and the text maps read back."""

import pytest

from family.texts import END, InputError, first_difference, load_map


@pytest.mark.parametrize(
    "a,b,want",
    [
        ("x\ny\n", "x\ny\n", None),
        ("x\ny\n", "x\nz\n", (2, "y", "z")),
        ("x\n", "x\ny\n", (2, END, "y")),  # a text that ended
        ("x\n", "x", (2, "'\\n'", "'x'")),  # only the final newline differs
        ("a\x0cb\nc\n", "a\x0cb\nd\n", (2, "c", "d")),  # a form feed is no line break
    ],
)
def test_first_difference(a, b, want):
    assert first_difference(a, b) == want


def test_a_map_must_be_ids_to_texts(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text('{"c1": "text"}', encoding="utf-8")
    bad.write_text('{"c1": 3}', encoding="utf-8")
    assert load_map(good) == {"c1": "text"}
    with pytest.raises(InputError, match="expected a JSON object id -> text"):
        load_map(bad)
    with pytest.raises(InputError, match="cannot read"):
        load_map(tmp_path / "none.json")
