"""The canonical spellings of literals (SPELLING.md states them for both engines).

Each value has exactly one spelling, built from bits and bytes only, so that
another engine (the C++ mirror) writes the same text with a printf and no
rules copied from Python's repr or json:

- float: the IEEE-754 double's 64 bits, "0x" and 16 upper-case hex digits
  (LLVM IR's own spelling of a double); every NaN is 0x7FF8000000000000;
- string: the UTF-8 bytes between double quotes, printable ASCII 0x20-0x7E
  verbatim except '"' and '\\', every other byte as '\\' and 2 upper-case hex
  digits.

The read_* functions accept exactly these spellings and otherwise raise
ValueError("expected SPELLING, got TEXT"); the parser adds the position.
"""

import math
import re
import struct

CANONICAL_NAN = 0x7FF8000000000000
_FLOAT = re.compile(r"0x[0-9A-F]{16}")


def double_bits(value):
    """The 64 bits of the double `value`; every NaN has the one canonical pattern."""
    if math.isnan(value):
        return CANONICAL_NAN
    return struct.unpack(">Q", struct.pack(">d", value))[0]


def float_text(value):
    return "0x%016X" % double_bits(value)


def read_float(text):
    if not _FLOAT.fullmatch(text):
        raise ValueError(
            f"expected a float spelled 0x and 16 upper-case hex digits (the IEEE double's bits, e.g. 1.0 is 0x3FF0000000000000), got {text!r}"
        )
    value = struct.unpack(">d", struct.pack(">Q", int(text[2:], 16)))[0]
    if math.isnan(value) and int(text[2:], 16) != CANONICAL_NAN:
        raise ValueError(f"expected NaN spelled 0x{CANONICAL_NAN:016X} (the one NaN spelling), got {text!r}")
    return value


def _verbatim(byte):
    return 0x20 <= byte <= 0x7E and byte not in b'"\\'


def string_text(value):
    try:
        data = value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"expected a string encodable as UTF-8, got {value!r} ({e.reason} at {e.start})") from None
    return '"' + "".join(chr(b) if _verbatim(b) else "\\%02X" % b for b in data) + '"'


def read_string(text):
    """The string spelled by `text` (quotes included)."""
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise ValueError(f"expected a string in double quotes, got {text!r}")
    out, i, body = bytearray(), 1, text[:-1]
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            code = body[i + 1 : i + 3]
            if not re.fullmatch(r"[0-9A-F]{2}", code) or _verbatim(int(code, 16)):
                raise ValueError(
                    f"expected a string escape \\XX with 2 upper-case hex digits of a byte that is not printable ASCII (or is \\22 for '\"', \\5C for '\\'), got {body[i : i + 3]!r}"
                )
            out.append(int(code, 16))
            i += 3
            continue
        if not _verbatim(ord(ch)):
            raise ValueError(
                f"expected printable ASCII in a string (any other character as \\XX, its UTF-8 bytes in hex), got {ch!r}"
            )
        out.append(ord(ch))
        i += 1
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(
            f"expected string escapes that spell UTF-8, got {text!r} ({e.reason} at byte {e.start})"
        ) from None
