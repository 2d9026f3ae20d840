#include "platform/ir/cpp/literals.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "platform/cpp/json/json.h"

namespace rocke::ir {

namespace {

bool verbatim(unsigned char byte) { return byte >= 0x20 && byte <= 0x7E && byte != '"' && byte != '\\'; }

bool upper_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); }

int hex_value(char c) { return c <= '9' ? c - '0' : c - 'A' + 10; }

// The first byte where `s` stops being UTF-8 and why, worded as Python's
// UnicodeDecodeError reasons; {npos, ""} for valid UTF-8. Overlong forms,
// surrogates and code points past U+10FFFF are refused, as Python's decoder does.
struct Utf8Error {
  size_t at;
  const char* reason;
};

// Bounds of the second byte after each lead byte (the rest are 0x80-0xBF).
bool second_ok(unsigned char lead, unsigned char b) {
  if (lead == 0xE0) return b >= 0xA0 && b <= 0xBF;
  if (lead == 0xED) return b >= 0x80 && b <= 0x9F;
  if (lead == 0xF0) return b >= 0x90 && b <= 0xBF;
  if (lead == 0xF4) return b >= 0x80 && b <= 0x8F;
  return (b & 0xC0) == 0x80;
}

// Length of the UTF-8 sequence at s[i]; 0 with `error` set if it is not one.
size_t utf8_length(std::string_view s, size_t i, Utf8Error* error = nullptr) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = at(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  const char* reason = "invalid start byte";
  for (size_t k = 1; n && k < n; ++k) {
    if (i + k >= s.size()) {
      reason = "unexpected end of data";
      n = 0;
    } else if (!(k == 1 ? second_ok(c, at(i + k)) : (at(i + k) & 0xC0) == 0x80)) {
      reason = "invalid continuation byte";
      n = 0;
    }
  }
  if (n == 0 && error) *error = {i, reason};
  return n;
}

Utf8Error utf8_error(std::string_view s) {
  Utf8Error error{std::string_view::npos, ""};
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_length(s, i, &error);
    if (n == 0) break;
    i += n;
  }
  return error;
}

}  // namespace

std::uint64_t double_bits(double value) {
  if (std::isnan(value)) return kCanonicalNan;
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

std::string float_text(double value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIX64, double_bits(value));
  return buf;
}

std::string string_text(std::string_view value) {
  if (utf8_error(value).reason[0])
    throw LiteralError("expected a string encodable as UTF-8, got " + json::quote(value));
  std::string out = "\"";
  for (unsigned char b : value) {
    if (verbatim(b)) {
      out += static_cast<char>(b);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "\\%02X", b);
      out += buf;
    }
  }
  return out + "\"";
}

double read_float(std::string_view text) {
  bool ok = text.size() == 18 && text.starts_with("0x");
  for (size_t i = 2; ok && i < text.size(); ++i) ok = upper_hex(text[i]);
  if (!ok) {
    throw LiteralError(
        "expected a float spelled 0x and 16 upper-case hex digits (the IEEE double's bits, e.g. 1.0 is "
        "0x3FF0000000000000), got " +
        json::quote(text));
  }
  std::uint64_t bits = 0;
  for (size_t i = 2; i < text.size(); ++i) bits = bits << 4 | static_cast<std::uint64_t>(hex_value(text[i]));
  double value;
  std::memcpy(&value, &bits, sizeof value);
  if (std::isnan(value) && bits != kCanonicalNan) {
    throw LiteralError("expected NaN spelled 0x7FF8000000000000 (the one NaN spelling), got " + json::quote(text));
  }
  return value;
}

std::string read_string(std::string_view text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') {
    throw LiteralError("expected a string in double quotes, got " + json::quote(text));
  }
  std::string out;
  std::string_view body = text.substr(0, text.size() - 1);
  for (size_t i = 1; i < body.size();) {
    char ch = body[i];
    if (ch == '\\') {
      std::string_view code = body.substr(i + 1, 2);
      bool ok = code.size() == 2 && upper_hex(code[0]) && upper_hex(code[1]);
      unsigned char byte = ok ? static_cast<unsigned char>(hex_value(code[0]) * 16 + hex_value(code[1])) : 0;
      if (!ok || verbatim(byte)) {
        throw LiteralError(
            "expected a string escape \\XX with 2 upper-case hex digits of a byte that is not printable ASCII (or is "
            "\\22 for '\"', "
            "\\5C for '\\'), got " +
            json::quote(body.substr(i, 3)));
      }
      out += static_cast<char>(byte);
      i += 3;
      continue;
    }
    if (!verbatim(static_cast<unsigned char>(ch))) {
      // Python reports the whole character: its UTF-8 sequence, when it is one.
      size_t n = utf8_length(body, i);
      throw LiteralError(
          "expected printable ASCII in a string (any other character as \\XX, its UTF-8 bytes in hex), got " +
          json::quote(body.substr(i, n ? n : 1)));
    }
    out += ch;
    ++i;
  }
  if (Utf8Error e = utf8_error(out); e.reason[0]) {
    throw LiteralError("expected string escapes that spell UTF-8, got " + json::quote(text) + " (" + e.reason +
                       " at byte " + std::to_string(e.at) + ")");
  }
  return out;
}

}  // namespace rocke::ir
