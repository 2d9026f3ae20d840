"""The canonical literal spellings (SPELLING.md): one per value, read back
bit-exact, and every other spelling refused with the one to use."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ir import literals
from ir import types as T
from ir.builder import KernelBuilder
from ir.parser import ParseError, parse
from ir.printer import print_kernel

HEAD = 'kernel @k() {arch = "gfx942", wave_size = 64, workgroup_size = [64, 1, 1]} {\n'


@pytest.mark.parametrize(
    "value,text",
    [
        (1.0, "0x3FF0000000000000"),
        (-2.5, "0xC004000000000000"),
        (0.0, "0x0000000000000000"),
        (-0.0, "0x8000000000000000"),
        (0.1, "0x3FB999999999999A"),
        (math.inf, "0x7FF0000000000000"),
        (-math.inf, "0xFFF0000000000000"),
        (math.nan, "0x7FF8000000000000"),
        (-math.nan, "0x7FF8000000000000"),  # every NaN has the one spelling
        (5e-324, "0x0000000000000001"),
    ],
)
def test_float_is_the_hex_of_its_double_bits(value, text):
    assert literals.float_text(value) == text
    back = literals.read_float(text)
    assert back == value or (math.isnan(back) and math.isnan(value))
    assert math.copysign(1, back) == math.copysign(1, value) or math.isnan(value)


@given(st.floats(allow_nan=False))
@settings(max_examples=300, derandomize=True)
def test_every_double_reads_back_bit_exact(value):
    text = literals.float_text(value)
    assert literals.double_bits(literals.read_float(text)) == literals.double_bits(value)
    assert literals.float_text(literals.read_float(text)) == text


@pytest.mark.parametrize(
    "text",
    [
        "0x3ff0000000000000",
        "0x3FF",
        "0x3FF00000000000000",
        "0X3FF0000000000000",
        "0x7FF8000000000001",
        "0xFFF8000000000000",
    ],
)
def test_float_spellings_that_are_not_the_one_are_refused(text):
    with pytest.raises(ValueError, match=f"^expected .*, got '{text}'"):
        literals.read_float(text)


@pytest.mark.parametrize(
    "value,text",
    [
        ("gfx942", '"gfx942"'),
        ('a"b\\c', '"a\\22b\\5Cc"'),
        ("tab\there\n", '"tab\\09here\\0A"'),
        ("\x7f", '"\\7F"'),
        ("é", '"\\C3\\A9"'),  # UTF-8 bytes, not the code point
        ("", '""'),
    ],
)
def test_string_escape_set(value, text):
    assert literals.string_text(value) == text
    assert literals.read_string(text) == value


@given(st.text())
@settings(max_examples=300, derandomize=True)
def test_every_string_reads_back(value):
    text = literals.string_text(value)
    assert all(0x20 <= ord(c) <= 0x7E for c in text)
    assert literals.read_string(text) == value


@pytest.mark.parametrize(
    "text,why",
    [
        ('"\\41"', "escape"),  # 'A' is printable: verbatim only
        ('"\\0a"', "escape"),  # lower-case hex
        ('"\\n"', "escape"),  # no C escapes
        ('"\\u00e9"', "escape"),  # no JSON escapes
        ('"\\"', "escape"),
        ('"é"', "printable ASCII"),
        ('"a\tb"', "printable ASCII"),
        ('"\\C3"', "UTF-8"),  # a cut UTF-8 sequence
        ('"\\ED\\A0\\80"', "UTF-8"),  # a surrogate is not UTF-8
    ],
)
def test_string_spellings_that_are_not_the_one_are_refused(text, why):
    with pytest.raises(ValueError, match=f"^expected .*{why}"):
        literals.read_string(text)


def test_a_lone_surrogate_cannot_be_printed():
    with pytest.raises(ValueError, match="^expected a string encodable as UTF-8"):
        literals.string_text("\ud800")


@pytest.mark.parametrize(
    "value,message",
    [
        ("1.0", "line 2, column 31: expected a float spelled as the hex of its IEEE double bits"),
        ("-2.5e3", "line 2, column 31: expected a float spelled as the hex of its IEEE double bits"),
        ("inf", "line 2, column 31: expected a float spelled as the hex of its IEEE double bits"),
        ("nan", "line 2, column 31: expected a float spelled as the hex of its IEEE double bits"),
        ("0x3ff0000000000000", "line 2, column 31: expected a float spelled 0x and 16 upper-case hex digits"),
        ("0x7FF0000000000001", "line 2, column 31: expected NaN spelled 0x7FF8000000000000"),
    ],
)
def test_the_parser_reads_only_the_canonical_float(value, message):
    text = HEAD + f"  %0 = arith.const() {{value = {value}}} : f32\n}}\n"
    with pytest.raises(ParseError) as err:
        parse(text)
    assert str(err.value).startswith(message), str(err.value)


def test_the_parser_reads_only_the_canonical_string():
    text = 'kernel @k() {arch = "gfx\\39\\34\\32", wave_size = 64, workgroup_size = [64, 1, 1]} {\n}\n'
    with pytest.raises(ParseError, match=r"^line 1, column 21: expected a string escape"):
        parse(text)


def test_kernel_text_round_trips_floats_and_strings_exactly():
    b = KernelBuilder("k", arch="gfx942", workgroup_size=(64, 1, 1))
    for value in (0.1, -0.0, math.inf, math.nan, 3.0e38, 1e-300):
        b.const(value, T.F32)
    kernel = b.finish()
    kernel.attrs["note"] = 'quote " backslash \\ newline \n é'
    text = print_kernel(kernel)
    assert "{value = 0x3FB999999999999A} : f32" in text and "{value = 0x8000000000000000} : f32" in text
    assert 'note = "quote \\22 backslash \\5C newline \\0A \\C3\\A9"' in text
    assert print_kernel(parse(text)) == text
