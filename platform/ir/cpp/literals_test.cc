// The spellings of platform/ir/SPELLING.md, with the examples it states, and
// the refusals worded as literals.py's.
#include "platform/ir/cpp/literals.h"

#include <cmath>
#include <limits>

#include "platform/cpp/testing/check.h"

using namespace rocke::ir;

ROCKE_TEST(floats_are_their_double_bits) {
  // SPELLING.md's table.
  CHECK_EQ(float_text(1.0), "0x3FF0000000000000");
  CHECK_EQ(float_text(-0.0), "0x8000000000000000");
  CHECK_EQ(float_text(0.1), "0x3FB999999999999A");
  CHECK_EQ(float_text(std::numeric_limits<double>::infinity()), "0x7FF0000000000000");
  CHECK_EQ(float_text(-std::numeric_limits<double>::infinity()), "0xFFF0000000000000");
  CHECK_EQ(float_text(std::nan("")), "0x7FF8000000000000");
  CHECK_EQ(float_text(-std::nan("0x5")), "0x7FF8000000000000");
}

ROCKE_TEST(floats_read_back_bit_exact) {
  for (double v : {0.0, -0.0, 0.1, -2.5, 1e-308, 4.9e-324, 1e300}) {
    CHECK_EQ(double_bits(read_float(float_text(v))), double_bits(v));
  }
  CHECK(std::isnan(read_float("0x7FF8000000000000")));
}

ROCKE_TEST(floats_in_any_other_spelling_are_refused) {
  const char* hex =
      "expected a float spelled 0x and 16 upper-case hex digits (the IEEE double's bits, e.g. 1.0 is "
      "0x3FF0000000000000), got ";
  CHECK_THROWS(LiteralError, read_float("1.0"), std::string(hex) + "\"1.0\"");
  CHECK_THROWS(LiteralError, read_float("0x3ff0000000000000"), std::string(hex) + "\"0x3ff0000000000000\"");
  CHECK_THROWS(LiteralError, read_float("0x3FF000000000000"), std::string(hex) + "\"0x3FF000000000000\"");
  CHECK_THROWS(LiteralError, read_float("0x7FF0000000000001"),
               "expected NaN spelled 0x7FF8000000000000 (the one NaN spelling), got \"0x7FF0000000000001\"");
}

ROCKE_TEST(strings_escape_every_byte_but_printable_ascii) {
  // SPELLING.md: '"' is \22, '\' is \5C, newline \0A, e-acute \C3\A9.
  CHECK_EQ(string_text("q\"b\\\\n\n\xC3\xA9"), "\"q\\22b\\5C\\5Cn\\0A\\C3\\A9\"");
  CHECK_EQ(string_text(""), "\"\"");
  CHECK_EQ(read_string("\"q\\22b\\5C\\5Cn\\0A\\C3\\A9\""), "q\"b\\\\n\n\xC3\xA9");
  CHECK_THROWS(LiteralError, string_text("\xED\xA0\x80"), "expected a string encodable as UTF-8, got \"\xED\xA0\x80\"");
}

ROCKE_TEST(strings_in_any_other_spelling_are_refused) {
  // The messages literals.py gives for the same text.
  CHECK_THROWS(LiteralError, read_string("\"a\\41\""),
               "expected a string escape \\XX with 2 upper-case hex digits of a byte that is not printable ASCII (or "
               "is \\22 for '\"', "
               "\\5C for '\\'), got \"\\\\41\"");
  CHECK_THROWS(LiteralError, read_string("\"a\\C3\""),
               "expected string escapes that spell UTF-8, got \"\\\"a\\\\C3\\\"\" (unexpected end of data at byte 1)");
  CHECK_THROWS(
      LiteralError, read_string("\"a\\C3\\0A\""),
      "expected string escapes that spell UTF-8, got \"\\\"a\\\\C3\\\\0A\\\"\" (invalid continuation byte at byte 1)");
  CHECK_THROWS(LiteralError, read_string("\"x"), "expected a string in double quotes, got \"\\\"x\"");
}

int main() { return rocke::testing::run_all(); }
