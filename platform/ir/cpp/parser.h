// Reads the .rk text form (printer.h) back into a Kernel, mirroring
// platform/ir/parser.py: parse(print_kernel(k)) prints back identically.
//
// Malformed input raises ParseError, worded as Python's, with the line and
// column where it went wrong; parse() raises nothing else. The result is not
// verified: call verify() on it. Text is UTF-8; columns count characters, as
// Python's do.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "platform/ir/cpp/core.h"

namespace rocke::ir {

// The IR's integers are at most 64-bit: 20 digits (parser.MAX_INT_DIGITS).
inline constexpr int kMaxIntDigits = 20;

class ParseError : public std::invalid_argument {
 public:
  ParseError(const std::string& message, int line, int column)
      : std::invalid_argument("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message),
        line(line),
        column(column) {}
  int line;
  int column;
};

// One kernel; ParseError on bad input.
std::unique_ptr<Kernel> parse(std::string_view text);

}  // namespace rocke::ir
