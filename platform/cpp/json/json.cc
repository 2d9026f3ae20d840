#include "platform/cpp/json/json.h"

#include <cstdio>
#include <limits>

namespace rocke::json {
namespace {

// Bytes of the text for a message: JSON-quoted, each byte past ASCII as
// \xNN (a snippet may cut a character, or hold bytes that are not UTF-8).
std::string shown(std::string_view bytes) {
  std::string out = "\"";
  for (char c : bytes) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      out += hex;
    } else {
      const std::string one = quote(std::string_view(&c, 1));
      out += one.substr(1, one.size() - 2);
    }
  }
  return out + "\"";
}

// Deeper nesting than any spec has; the bound keeps hostile text from
// exhausting the stack (Python stops near its recursion limit too).
constexpr int kMaxDepth = 512;

// A recursive-descent reader over RFC 8259, stricter than json.loads where
// json.loads would accept what has no single spelling: floats, NaN,
// duplicate keys, lone surrogates and bytes that are not UTF-8. Integers of
// any size read, as json.loads reads them (beyond int64 as BigInt).
class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Value document() {
    skip_space();
    Value v = value(0);
    skip_space();
    if (i_ != s_.size()) fail("expected the end of the text after the value", got());
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& got) const { fail_at(i_, what, got); }

  [[noreturn]] static void fail_at(size_t at, const std::string& what, const std::string& got) {
    throw ParseError("JSON byte " + std::to_string(at) + ": " + what + ", got " + got);
  }

  // The text at the cursor, for "got ...": a few bytes, or the end.
  std::string got() const {
    if (i_ >= s_.size()) return "the end of the text";
    return shown(s_.substr(i_, 12));
  }

  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }

  bool take(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  Value value(int depth) {
    if (depth > kMaxDepth) fail("expected at most " + std::to_string(kMaxDepth) + " nested arrays and objects", "more");
    if (i_ >= s_.size()) fail("expected a value", got());
    const char c = s_[i_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') return string();
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    if (take("true")) return true;
    if (take("false")) return false;
    if (take("null")) return nullptr;
    fail("expected a value (object, array, string, integer, true, false or null)", got());
  }

  Value object(int depth) {
    Object out;
    ++i_;
    skip_space();
    if (take("}")) return out;
    for (;;) {
      skip_space();
      if (i_ >= s_.size() || s_[i_] != '"') fail("expected a string key", got());
      const size_t at = i_;
      std::string key = string();
      skip_space();
      if (!take(":")) fail("expected ':' after the key", got());
      skip_space();
      Value v = value(depth + 1);
      if (out.contains(key)) fail_at(at, "expected each key once in an object", "the key " + quote(key) + " again");
      out.emplace(std::move(key), std::move(v));
      skip_space();
      if (take("}")) return out;
      if (!take(",")) fail("expected ',' or '}' in an object", got());
    }
  }

  Value array(int depth) {
    Array out;
    ++i_;
    skip_space();
    if (take("]")) return out;
    for (;;) {
      skip_space();
      out.push_back(value(depth + 1));
      skip_space();
      if (take("]")) return out;
      if (!take(",")) fail("expected ',' or ']' in an array", got());
    }
  }

  Value number() {
    const size_t at = i_;
    const bool negative = take("-");
    if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') fail("expected a digit", got());
    if (s_[i_] == '0' && i_ + 1 < s_.size() && s_[i_ + 1] >= '0' && s_[i_ + 1] <= '9') {
      fail("expected an integer without leading zeros", got());
    }
    // Accumulated negatively: -2^63 fits, 2^63 does not; past int64 the digits are kept.
    std::int64_t n = 0;
    bool big = false;
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    for (; i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9'; ++i_) {
      const int d = s_[i_] - '0';
      big = big || n < (kMin + d) / 10;
      if (!big) n = n * 10 - d;
    }
    if (i_ < s_.size() && (s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E')) {
      fail_at(at, "expected an integer (a spec holds no floats)", "a float");
    }
    if (big || (!negative && n == kMin)) return BigInt{std::string(s_.substr(at, i_ - at))};
    return negative ? n : -n;
  }

  unsigned hex4() {
    if (i_ + 4 > s_.size()) fail("expected 4 hex digits after \\u", got());
    unsigned u = 0;
    for (int k = 0; k < 4; ++k, ++i_) {
      const char h = s_[i_];
      const int d = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
      if (d < 0) fail("expected a hex digit in \\uXXXX", got());
      u = u * 16 + static_cast<unsigned>(d);
    }
    return u;
  }

  static void put_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // A \u escape (the cursor after the 'u'), a surrogate pair read whole.
  unsigned code_point() {
    const size_t at = i_ - 2;
    const unsigned u = hex4();
    if (u >= 0xDC00 && u <= 0xDFFF)
      fail_at(at, "expected a character, not a lone low surrogate", "\\u" + std::string(s_.substr(at + 2, 4)));
    if (u < 0xD800 || u > 0xDBFF) return u;
    if (!take("\\u")) fail_at(at, "expected a low surrogate \\uDC00-\\uDFFF after a high one", got());
    const unsigned low = hex4();
    if (low < 0xDC00 || low > 0xDFFF)
      fail_at(at, "expected a low surrogate \\uDC00-\\uDFFF after a high one",
              "\\u" + std::string(s_.substr(i_ - 4, 4)));
    return 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
  }

  // One UTF-8 sequence copied as is; its length from the lead byte, each
  // continuation checked, overlong forms and surrogates refused.
  void utf8(std::string& out) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s_[i_ + k]); };
    const unsigned char lead = b(0);
    const int len = lead >= 0xF0 && lead <= 0xF4   ? 4
                    : lead >= 0xE0 && lead <= 0xEF ? 3
                    : lead >= 0xC2 && lead <= 0xDF ? 2
                                                   : 0;
    bool ok = len != 0 && i_ + len <= s_.size();
    for (int k = 1; ok && k < len; ++k) ok = (b(k) & 0xC0) == 0x80;
    if (ok && len == 3) ok = (lead != 0xE0 || b(1) >= 0xA0) && (lead != 0xED || b(1) < 0xA0);
    if (ok && len == 4) ok = (lead != 0xF0 || b(1) >= 0x90) && (lead != 0xF4 || b(1) < 0x90);
    if (!ok) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", lead);
      fail("expected UTF-8 text", std::string("the byte ") + hex);
    }
    out.append(s_.substr(i_, len));
    i_ += len;
  }

  std::string string() {
    ++i_;
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("expected '\"' to end the string", got());
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return out;
      }
      if (c < 0x20) fail("expected a control character escaped in a string", shown(s_.substr(i_, 1)));
      if (c >= 0x80) {
        utf8(out);
        continue;
      }
      ++i_;
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (i_ >= s_.size()) fail("expected an escape after '\\'", got());
      const char e = s_[i_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u':
          put_utf8(out, code_point());
          break;
        default:
          i_ -= 2;  // at the backslash
          fail("expected one of the escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", shown(s_.substr(i_, 2)));
      }
    }
  }

  std::string_view s_;
  size_t i_ = 0;
};

// The escapes json.dumps writes; every other control byte is \u00xx.
const char* short_escape(char c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    default:
      return nullptr;
  }
}

void canonical_into(std::string& out, const Value& v) {
  if (v.is_null()) {
    out += "null";
  } else if (v.is_bool()) {
    out += v.as_bool() ? "true" : "false";
  } else if (v.is_int()) {
    out += std::to_string(v.as_int());
  } else if (v.is_big()) {
    out += v.as_big().digits;
  } else if (v.is_str()) {
    out += quote(v.as_str());
  } else if (v.is_array()) {
    out += '[';
    for (const Value& item : v.as_array()) {
      if (out.back() != '[') out += ',';
      canonical_into(out, item);
    }
    out += ']';
  } else {
    out += '{';
    for (const auto& [key, item] : v.as_object()) {
      if (out.back() != '{') out += ',';
      out += quote(key);
      out += ':';
      canonical_into(out, item);
    }
    out += '}';
  }
}

}  // namespace

Value parse(std::string_view text) { return Parser(text).document(); }

std::string canonical(const Value& v) {
  std::string out;
  canonical_into(out, v);
  return out;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (const char* e = short_escape(c)) {
      out += e;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[7];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace rocke::json
