"""The emitters' text maps (NAME.F.rk.json, NAME.F.irs.json: canonical JSON,
case id -> text), read back, and where two texts first differ: what the
byte-identity gate (identity_check.py) and the engines tests (engines.py)
report."""

import json

END = "<end of text>"


class InputError(Exception):
    """An emitted file that cannot be read."""


def load_map(path):
    """The id -> text map at `path`; InputError if it is unreadable or not such a map."""
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read {path}: {e}") from None
    if type(value) is not dict or not all(type(v) is str for v in value.values()):
        raise InputError(f"{path}: expected a JSON object id -> text, got {type(value).__name__}")
    return value


def first_difference(a, b):
    """(line number, line of a, line of b) of the first line where `a` and `b`
    differ, END for a text that has ended; None if they are equal. Texts that
    differ only in a final newline show the last character of each."""
    if a == b:
        return None
    la, lb = _lines(a), _lines(b)
    for number in range(1, max(len(la), len(lb)) + 1):
        x = la[number - 1] if number <= len(la) else END
        y = lb[number - 1] if number <= len(lb) else END
        if x != y:
            return number, x, y
    return len(la) + 1, repr(a[-1:]), repr(b[-1:])


def _lines(text):
    """The lines of `text`, split at "\n" only (an IR or .rk text may hold other control characters)."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines
