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

// Levenshtein distance, ASCII case ignored.
std::size_t edits(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1)});
      diagonal = above;
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
