#include "platform/cpp/py/repr.h"

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <vector>

namespace rocke::py {

std::string repr(std::string_view s) {
  const char quote = (s.find('\'') != s.npos && s.find('"') == s.npos) ? '"' : '\'';
  std::string out(1, quote);
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
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
    const double total = static_cast<double>(x->size() + word.size());
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
