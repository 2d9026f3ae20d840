"""rocke::json against Python's json on generated values: the canonical text
is json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False),
parsing any of Python's spellings of v (indented, \\u-escaped) gives it, and
repr() is Python's repr of json.loads of the canonical text."""

import json
import os
import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "json_tool")

# Characters Python's repr prints as they are (py::repr passes non-ASCII
# through; json.h's Known limits): printable, plus the ASCII controls repr
# escapes; surrogates have no UTF-8.
_REPR_SAFE = st.characters(blacklist_categories=("Cs",)).filter(lambda c: c.isprintable() or ord(c) < 0x80)
# Any integer, beyond 64 bits too (json.loads keeps them; so does rocke::json).
_INTS = st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.integers(min_value=-(10**40), max_value=10**40)
VALUES = st.recursive(
    st.none() | st.booleans() | _INTS | st.text(_REPR_SAFE, max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(_REPR_SAFE, max_size=6), inner, max_size=4),
    max_leaves=12,
)


def cpp(texts):
    out = subprocess.run(
        [TOOL], input="".join(t + "\n" for t in texts), capture_output=True, text=True, check=True
    ).stdout.split("\n")
    return [(out[2 * i], json.loads(out[2 * i + 1])) for i in range(len(texts))]


def canonical(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@given(VALUES)
@settings(max_examples=300, derandomize=True, deadline=None)
def test_canonical_and_repr_match_python(value):
    text = canonical(value)
    # The other spellings Python writes; all one line (indent=None).
    spellings = [text, json.dumps(value), json.dumps(value, ensure_ascii=True, separators=(", ", " : "))]
    for got_canonical, got_repr in cpp(spellings):
        assert got_canonical == text
        assert got_repr == repr(json.loads(text))


def test_refused_texts_name_the_byte():
    got = cpp(["[1.5]", '{"a":1,"a":2}', "NaN", "[1,]"])
    assert [c for c, _ in got] == ["error"] * 4
    assert [m.split(":")[0] for _, m in got] == ["JSON byte 1", "JSON byte 7", "JSON byte 0", "JSON byte 3"]
