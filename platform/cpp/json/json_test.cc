// Expected canonical texts are what CPython 3 prints: json.dumps(v,
// sort_keys=True, separators=(",", ":"), ensure_ascii=False).
#include "platform/cpp/json/json.h"

#include <string>

#include "platform/cpp/testing/check.h"

using rocke::json::Array;
using rocke::json::canonical;
using rocke::json::Object;
using rocke::json::parse;
using rocke::json::ParseError;
using rocke::json::quote;
using rocke::json::Value;

namespace {

// The value of the test's sample: every kind, every escape json.dumps writes.
const char kPretty[] =
    "{ \"b\": [1, -2, true, null],\n"
    "  \"a\": {\"z\": \"\\u0001\\t\\u007f\\b\\f\\r\\n\\\"\\\\\\u00e9\\/\", \"y\": 0},\n"
    "  \"\": -9223372036854775808 }";

}  // namespace

ROCKE_TEST(canonical_is_json_dumps_sorted_compact_unescaped) {
  // json.dumps(json.loads(kPretty), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
  CHECK_EQ(
      canonical(parse(kPretty)),
      std::string("{\"\":-9223372036854775808,\"a\":{\"y\":0,\"z\":\"\\u0001\\t\x7f\\b\\f\\r\\n\\\"\\\\\xc3\xa9/\"},"
                  "\"b\":[1,-2,true,null]}"));
  CHECK_EQ(canonical(Value(Array{})), std::string("[]"));
  CHECK_EQ(canonical(Value(Object{})), std::string("{}"));
  CHECK_EQ(canonical(parse("9223372036854775807")), std::string("9223372036854775807"));
}

ROCKE_TEST(canonical_text_reads_back_to_itself) {
  const std::string text = canonical(parse(kPretty));
  CHECK_EQ(canonical(parse(text)), text);
  CHECK(parse(text) == parse(kPretty));
}

ROCKE_TEST(keys_sort_by_code_point) {
  // sorted(["é", "z", "Z", "a"]) == ['Z', 'a', 'z', 'é']
  CHECK_EQ(canonical(parse("{\"\xc3\xa9\":1,\"z\":2,\"Z\":3,\"a\":4}")),
           std::string("{\"Z\":3,\"a\":4,\"z\":2,\"\xc3\xa9\":1}"));
}

ROCKE_TEST(quote_is_json_dumps_of_a_str) {
  // json.dumps("\x1f\u2028😀", ensure_ascii=False) == '"\\u001f\u2028😀"'
  CHECK_EQ(quote("\x1f\xe2\x80\xa8\xf0\x9f\x98\x80"), std::string("\"\\u001f\xe2\x80\xa8\xf0\x9f\x98\x80\""));
  CHECK_EQ(quote("a\"b\\c\n"), std::string("\"a\\\"b\\\\c\\n\""));
  CHECK_EQ(quote(""), std::string("\"\""));
}

ROCKE_TEST(unicode_escapes_decode_to_utf8) {
  CHECK_EQ(parse("\"\\ud83d\\ude00\\u00e9\\u0041\"").as_str(), std::string("\xf0\x9f\x98\x80\xc3\xa9"
                                                                           "A"));
}

ROCKE_TEST(integers_beyond_64_bits_keep_their_digits) {
  // json.loads keeps any integer: a spec refuses one, naming its field and the value.
  const Value big = parse("[9223372036854775808, -9223372036854775809, 100000000000000000000000000000000000000001]");
  const Array& items = big.as_array();
  CHECK(items[0].is_big() && !items[0].is_int() && !items[0].as_big().negative());
  CHECK(items[1].is_big() && items[1].as_big().negative());
  CHECK_EQ(items[2].as_big().digits, std::string("100000000000000000000000000000000000000001"));
  CHECK_EQ(canonical(big),
           std::string("[9223372036854775808,-9223372036854775809,100000000000000000000000000000000000000001]"));
  // The edges of int64 stay ints; -0 is 0, as json.loads reads it.
  CHECK(parse("9223372036854775807").is_int() && parse("-9223372036854775808").is_int());
  CHECK(parse("-0") == Value(0));
  CHECK_THROWS(ParseError, parse("[-012345678901234567890]"),
               "JSON byte 2: expected an integer without leading zeros, got \"012345678901\"");
}

ROCKE_TEST(errors_name_the_byte_offset) {
  CHECK_THROWS(ParseError, parse("{\"a\": 1.5}"),
               "JSON byte 6: expected an integer (a spec holds no floats), got a float");
  CHECK_THROWS(ParseError, parse("[1e3]"), "JSON byte 1: expected an integer (a spec holds no floats), got a float");
  CHECK_THROWS(ParseError, parse("[1, 2"), "JSON byte 5: expected ',' or ']' in an array, got the end of the text");
  CHECK_THROWS(ParseError, parse("{\"a\":1,\"a\":2}"),
               "JSON byte 7: expected each key once in an object, got the key \"a\" again");
  CHECK_THROWS(ParseError, parse("[01]"), "JSON byte 1: expected an integer without leading zeros, got \"01]\"");
  CHECK_THROWS(ParseError, parse("{} x"), "JSON byte 3: expected the end of the text after the value, got \"x\"");
  // Bytes past ASCII show as \xNN: a snippet may cut a character.
  CHECK_THROWS(ParseError, parse("\xc3\xa9"),
               "JSON byte 0: expected a value (object, array, string, integer, true, false or null), got "
               "\"\\xc3\\xa9\"");
  CHECK_THROWS(ParseError, parse("NaN"),
               "JSON byte 0: expected a value (object, array, string, integer, true, false or null), got \"NaN\"");
  CHECK_THROWS(ParseError, parse("\"a\nb\""),
               "JSON byte 2: expected a control character escaped in a string, got \"\\n\"");
  CHECK_THROWS(ParseError, parse("\"\\x\""),
               "JSON byte 1: expected one of the escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX, got \"\\\\x\"");
  CHECK_THROWS(ParseError, parse("\"\\udc00\""),
               "JSON byte 1: expected a character, not a lone low surrogate, got \\udc00");
  CHECK_THROWS(ParseError, parse("\"\xff\""), "JSON byte 1: expected UTF-8 text, got the byte 0xff");
  // 0xF5-0xFF lead no sequence, even with continuation bytes after them.
  CHECK_THROWS(ParseError, parse("\"\xf8\x80\x80\""), "JSON byte 1: expected UTF-8 text, got the byte 0xf8");
  CHECK_THROWS(ParseError, parse("\"\xed\xa0\x80\""), "JSON byte 1: expected UTF-8 text, got the byte 0xed");
  CHECK_THROWS(ParseError, parse(""), "JSON byte 0: expected a value, got the end of the text");
  CHECK_THROWS(ParseError, parse(std::string(600, '[')),
               "JSON byte 513: expected at most 512 nested arrays and objects, got more");
}

int main() { return rocke::testing::run_all(); }
