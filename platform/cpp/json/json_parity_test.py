"""rocke::json against Python's json on generated values: the canonical text
is json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False),
and parsing any of Python's spellings of v (indented, \\u-escaped) gives it."""

import json
import os
import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "json_tool")

# Any character but a surrogate (it has no UTF-8).
_CHARS = st.characters(blacklist_categories=("Cs",))
# Any integer, beyond 64 bits too (json.loads keeps them; so does rocke::json).
_INTS = st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.integers(min_value=-(10**40), max_value=10**40)
VALUES = st.recursive(
    st.none() | st.booleans() | _INTS | st.text(_CHARS, max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(_CHARS, max_size=6), inner, max_size=4),
    max_leaves=12,
)


def cpp(texts):
    """json_tool's line per text: its canonical text, or ("error", message)."""
    out = subprocess.run(
        [TOOL], input="".join(t + "\n" for t in texts), capture_output=True, text=True, check=True
    ).stdout.split("\n")
    return [("error", json.loads(line[6:])) if line.startswith("error ") else line for line in out[: len(texts)]]


def canonical(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@given(VALUES)
@settings(max_examples=300, derandomize=True, deadline=None)
def test_canonical_matches_python(value):
    text = canonical(value)
    # The other spellings Python writes; all one line (indent=None).
    spellings = [text, json.dumps(value), json.dumps(value, ensure_ascii=True, separators=(", ", " : "))]
    assert cpp(spellings) == [text] * len(spellings)


def test_refused_texts_name_the_byte():
    got = cpp(["[1.5]", '{"a":1,"a":2}', "NaN", "[1,]"])
    assert [c for c, _ in got] == ["error"] * 4
    assert [m.split(":")[0] for _, m in got] == ["JSON byte 1", "JSON byte 7", "JSON byte 0", "JSON byte 3"]
