// Expected values are what CPython 3 prints (repr, difflib.get_close_matches).
#include <string>
#include <string_view>

#include "platform/cpp/py/repr.h"
#include "platform/cpp/testing/check.h"

using rocke::py::close_match;
using rocke::py::repr;

ROCKE_TEST(repr_quotes_and_escapes) {
  CHECK_EQ(repr("gfx942"), std::string("'gfx942'"));
  CHECK_EQ(repr(""), std::string("''"));
  CHECK_EQ(repr("it's"), std::string("\"it's\""));
  CHECK_EQ(repr("'\""), std::string("'\\'\"'"));
  CHECK_EQ(repr("a\\b\t\n\r"), std::string("'a\\\\b\\t\\n\\r'"));
  CHECK_EQ(repr(std::string_view("\x01\x7f", 2)), std::string("'\\x01\\x7f'"));
  // Non-printable non-ASCII characters, as CPython escapes them: NBSP, EN
  // QUAD, ZERO WIDTH SPACE, a private-use character; printable ones pass.
  CHECK_EQ(repr("a\u00a0b\u2000c\u200b\ue000"), std::string("'a\\xa0b\\u2000c\\u200b\\ue000'"));
  CHECK_EQ(repr("\U000F0000"), std::string("'\\U000f0000'"));
  CHECK_EQ(repr("\u00e9\u4e2d"), std::string("'\u00e9\u4e2d'"));
}

ROCKE_TEST(close_match_like_difflib) {
  const std::string_view words[] = {"ape", "apple", "peach", "puppy"};
  // difflib.get_close_matches("appel", ["ape", "apple", "peach", "puppy"], n=1) == ["apple"]
  CHECK_EQ(close_match("appel", words, words + 4), std::string_view("apple"));
  CHECK_EQ(close_match("ap", words, words + 4), std::string_view("ape"));
  // "app" and "ppa" both score 0.8 for "pp": the greater string wins, in either order.
  const std::string_view tie[] = {"app", "ppa"}, tie_reversed[] = {"ppa", "app"};
  CHECK_EQ(close_match("pp", tie, tie + 2), std::string_view("ppa"));
  CHECK_EQ(close_match("pp", tie_reversed, tie_reversed + 2), std::string_view("ppa"));
  CHECK_EQ(close_match("zzz", words, words + 4), std::string_view(""));
  CHECK_EQ(close_match("", words, words + 4), std::string_view(""));
}

int main() { return rocke::testing::run_all(); }
