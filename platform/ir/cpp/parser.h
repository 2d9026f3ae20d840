// Reads the .rk text form (printer.h) back into a Kernel, mirroring
// platform/ir/parser.py: parse(print_kernel(k)) prints back identically.
//
// Malformed input raises ParseError, with the facts of Python's, and the line and
// column where it went wrong; parse() raises nothing else. The result is not
// verified: call verify() on it. Text is UTF-8; columns count characters, as
// Python's do.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "platform/ir/cpp/core.h"

namespace rocke::ir {

// The IR's integers are at most 64-bit: 20 digits (parser.MAX_INT_DIGITS).
inline constexpr int kMaxIntDigits = 20;

// Malformed text, with the facts of Python's ParseError (parser.py): field
// "line L, column C", value the offending token's text.
class ParseError : public std::invalid_argument {
 public:
  ParseError(const std::string& message, int line, int column, std::string value)
      : std::invalid_argument(where(line, column) + ": " + message),
        line(line),
        column(column),
        value(std::move(value)) {}
  static std::string where(int line, int column) {
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
  }
  // [class name, field, value, allowed]: Python's ParseError.facts().
  json::Array facts() const { return {"ParseError", where(line, column), value, nullptr}; }
  int line;
  int column;
  std::string value;
};

// One kernel; ParseError on bad input.
std::unique_ptr<Kernel> parse(std::string_view text);

}  // namespace rocke::ir
