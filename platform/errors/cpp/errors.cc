#include "platform/errors/cpp/errors.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <numeric>
#include <utility>
#include <vector>

namespace rocke::errors {

FieldError::FieldError(std::string python_class, std::string field, json::Value value, json::Value allowed,
                       const std::string& message)
    : std::invalid_argument(message),
      python_class_(std::move(python_class)),
      field_(std::move(field)),
      value_(std::move(value)),
      allowed_(std::move(allowed)) {}

std::string FieldError::class_name() const { return python_class_.substr(python_class_.rfind('.') + 1); }

json::Array FieldError::facts() const { return {class_name(), field_, value_, allowed_}; }

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Edit distance counting an insertion, a deletion, a substitution or a swap
// of two neighbours as one edit (optimal string alignment), ASCII case
// ignored: "tyo" is one edit from "toy".
std::size_t edits(std::string_view a, std::string_view b) {
  const auto same = [&](std::size_t i, std::size_t j) { return lower(a[i - 1]) == lower(b[j - 1]); };
  std::vector<std::size_t> before(b.size() + 1), last(b.size() + 1), row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    before = last;
    last = row;
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + (same(i, j) ? 0 : 1)});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
  }
  return row[b.size()];
}

}  // namespace

std::string_view closest(std::string_view word, std::span<const std::string_view> candidates) {
  std::string_view best;
  std::size_t best_edits = 0;
  for (std::string_view c : candidates) {
    const std::size_t n = edits(word, c);
    if (n <= std::max<std::size_t>(1, c.size() / 3) && (best.empty() || n < best_edits)) {
      best = c;
      best_edits = n;
    }
  }
  return best;
}

std::string worded(std::string_view field, std::string_view allowed, const json::Value& value, std::string_view fix) {
  std::string out = std::string(field) + ": expected " + std::string(allowed) + ", got " + json::canonical(value);
  if (!fix.empty()) out += "; " + std::string(fix);
  return out;
}

}  // namespace rocke::errors
