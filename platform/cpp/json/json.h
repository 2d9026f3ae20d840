// JSON values for the case lists and specs both engines read
// (platform/family/cases_json.py, platform/ir/SPELLING.md): a strict parser
// and the canonical writer, byte-identical to Python's
// json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False).
//
// Numbers are integers only: a spec holds no floats, and the parser refuses
// one (naming its position) rather than round it. An integer beyond 64 bits
// is kept as its digits (BigInt), as json.loads keeps it, so that a spec can
// refuse it naming its field and the value received.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace rocke::json {

// Text that is not JSON (or has a float); the message names the byte offset.
class ParseError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// An integer outside int64, as its decimal text: an optional '-', no leading zeros.
struct BigInt {
  std::string digits;

  bool negative() const { return digits.front() == '-'; }
  bool operator==(const BigInt&) const = default;
};

struct Value;
using Array = std::vector<Value>;
// Sorted by key bytes, which for UTF-8 is Python's sort by code point.
using Object = std::map<std::string, Value, std::less<>>;

struct Value {
  std::variant<std::nullptr_t, bool, std::int64_t, BigInt, std::string, Array, Object> v;

  Value() : v(nullptr) {}
  // NOLINTBEGIN(misc-explicit-constructor): implicit on purpose, so that a
  // document is written as literals (Object{{"n", 1}, {"name", "x"}}), as in Python.
  Value(std::nullptr_t) : v(nullptr) {}
  Value(bool b) : v(b) {}
  Value(int i) : v(std::int64_t{i}) {}
  Value(std::int64_t i) : v(i) {}
  Value(BigInt i) : v(std::move(i)) {}
  Value(const char* s) : v(std::string(s)) {}
  Value(std::string s) : v(std::move(s)) {}
  Value(Array a) : v(std::move(a)) {}
  Value(Object o) : v(std::move(o)) {}
  // NOLINTEND(misc-explicit-constructor)

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(v); }
  bool is_bool() const { return std::holds_alternative<bool>(v); }
  bool is_int() const { return std::holds_alternative<std::int64_t>(v); }
  bool is_big() const { return std::holds_alternative<BigInt>(v); }
  // An integer above int64's range: Python's `value > 2**63 - 1`.
  bool above_int64() const { return is_big() && !as_big().negative(); }
  bool is_str() const { return std::holds_alternative<std::string>(v); }
  bool is_array() const { return std::holds_alternative<Array>(v); }
  bool is_object() const { return std::holds_alternative<Object>(v); }
  bool as_bool() const { return std::get<bool>(v); }
  std::int64_t as_int() const { return std::get<std::int64_t>(v); }
  const BigInt& as_big() const { return std::get<BigInt>(v); }
  const std::string& as_str() const { return std::get<std::string>(v); }
  const Array& as_array() const { return std::get<Array>(v); }
  const Object& as_object() const { return std::get<Object>(v); }

  bool operator==(const Value&) const = default;
};

// The value of `text` (one JSON value, whitespace around it allowed).
Value parse(std::string_view text);

// Canonical text of `v`, no trailing newline.
std::string canonical(const Value& v);

// A JSON string literal as json.dumps(ensure_ascii=False) writes it.
std::string quote(std::string_view s);

}  // namespace rocke::json
