#include "platform/cpp/py/repr.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <tuple>
#include <utility>
#include <vector>

namespace rocke::py {

namespace {

// Code points >= 0x80 that Python's str.isprintable() rejects, so repr()
// escapes them: categories Cc, Cf, Zs, Zl, Zp and Co (from CPython 3.11's
// unicodedata). Unassigned code points (Cn), which Python escapes too, are
// not listed: they pass through.
constexpr std::pair<char32_t, char32_t> kNonPrintable[] = {
    {0x80, 0xA0},       {0xAD, 0xAD},         {0x600, 0x605},     {0x61C, 0x61C},     {0x6DD, 0x6DD},
    {0x70F, 0x70F},     {0x890, 0x891},       {0x8E2, 0x8E2},     {0x1680, 0x1680},   {0x180E, 0x180E},
    {0x2000, 0x200F},   {0x2028, 0x202F},     {0x205F, 0x2064},   {0x2066, 0x206F},   {0x3000, 0x3000},
    {0xE000, 0xF8FF},   {0xFEFF, 0xFEFF},     {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
    {0x13430, 0x13438}, {0x1BCA0, 0x1BCA3},   {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F},
    {0xF0000, 0xFFFFD}, {0x100000, 0x10FFFD},
};

bool non_printable(char32_t cp) {
  return std::any_of(std::begin(kNonPrintable), std::end(kNonPrintable),
                     [cp](const auto& r) { return r.first <= cp && cp <= r.second; });
}

// The code point of the UTF-8 sequence at s[i] and its length, or length 0
// when the bytes there are not one well-formed sequence.
std::pair<char32_t, size_t> decode(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const size_t n = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return {0, 0};
  char32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return {0, 0};
    cp = cp << 6 | (b & 0x3F);
  }
  const char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
  return {cp, n};
}

}  // namespace

std::string repr(std::string_view s) {
  const char quote = (s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos) ? '"' : '\'';
  std::string out(1, quote);
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80) {
      const auto [cp, n] = decode(s, i);
      if (n && non_printable(cp)) {
        char buf[12];
        std::snprintf(buf, sizeof buf,
                      cp <= 0xFF     ? "\\x%02x"
                      : cp <= 0xFFFF ? "\\u%04x"
                                     : "\\U%08x",
                      static_cast<unsigned>(cp));
        out += buf;
        i += n - 1;
        continue;
      }
    }
    if (ch == '\\' || ch == quote) {
      out += '\\';
      out += ch;
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + quote;
}

namespace {

// SequenceMatcher.find_longest_match(alo, ahi, blo, bhi) without junk: the
// longest common block, the first one found scanning a, then b.
std::tuple<size_t, size_t, size_t> longest(std::string_view a, std::string_view b, size_t alo, size_t ahi, size_t blo,
                                           size_t bhi) {
  size_t besti = alo, bestj = blo, bestsize = 0;
  // j2len[j + 1]: length of the common run ending at a[i - 1] and b[j].
  std::vector<size_t> j2len(b.size() + 1, 0), next(b.size() + 1, 0);
  for (size_t i = alo; i < ahi; ++i) {
    std::fill(next.begin(), next.end(), 0);
    for (size_t j = blo; j < bhi; ++j) {
      if (a[i] != b[j]) continue;
      const size_t k = next[j + 1] = j2len[j] + 1;
      if (k > bestsize) {
        besti = i + 1 - k;
        bestj = j + 1 - k;
        bestsize = k;
      }
    }
    j2len.swap(next);
  }
  return {besti, bestj, bestsize};
}

// Total size of get_matching_blocks(): the longest block, then recursively
// the parts left and right of it.
size_t matches(std::string_view a, std::string_view b, size_t alo, size_t ahi, size_t blo, size_t bhi) {
  const auto [i, j, k] = longest(a, b, alo, ahi, blo, bhi);
  if (k == 0) return 0;
  size_t total = k;
  if (alo < i && blo < j) total += matches(a, b, alo, i, blo, j);
  if (i + k < ahi && j + k < bhi) total += matches(a, b, i + k, ahi, j + k, bhi);
  return total;
}

}  // namespace

std::string_view close_match(std::string_view word, const std::string_view* begin, const std::string_view* end) {
  constexpr double kCutoff = 0.6;
  double best = -1;
  std::string_view found;
  for (const std::string_view* x = begin; x != end; ++x) {
    const auto total = static_cast<double>(x->size() + word.size());
    // real_quick_ratio(), an upper bound, first. It also rules out every
    // word of 200 or more characters for candidates under 86, where Python
    // would start treating popular characters as junk (autojunk).
    if (total == 0 || 2.0 * static_cast<double>(std::min(x->size(), word.size())) / total < kCutoff) continue;
    const double ratio = 2.0 * static_cast<double>(matches(*x, word, 0, x->size(), 0, word.size())) / total;
    if (ratio >= kCutoff && (ratio > best || (ratio == best && *x > found))) {
      best = ratio;
      found = *x;
    }
  }
  return found;
}

}  // namespace rocke::py
