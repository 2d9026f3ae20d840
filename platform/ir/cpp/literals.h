// The canonical spellings of literals in .rk text, mirroring
// platform/ir/literals.py (platform/ir/SPELLING.md states them): a float is
// 0x and the 16 upper-case hex digits of its double's bits (every NaN
// 0x7FF8000000000000); a string is its UTF-8 bytes in double quotes, 0x20-0x7E
// verbatim except '"' and '\', every other byte as \XX.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rocke::ir {

inline constexpr std::uint64_t kCanonicalNan = 0x7FF8000000000000ull;

// A literal that is not in its one spelling (Python's ValueError), worded as Python's.
class LiteralError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The double's 64 bits; every NaN the canonical pattern.
std::uint64_t double_bits(double value);
std::string float_text(double value);
// LiteralError for a string that is not valid UTF-8 (Python cannot encode it).
std::string string_text(std::string_view value);

// Exactly the spellings above; LiteralError otherwise.
double read_float(std::string_view text);
std::string read_string(std::string_view text);

}  // namespace rocke::ir
