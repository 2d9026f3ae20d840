#include "platform/family/cpp/fields.h"

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <utility>

#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"

namespace rocke::family {

std::string digits(unsigned __int128 x) {
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
    x /= 10;
  } while (x != 0);
  return out;
}

bool positive_decimal(const std::string& text) {
  static const std::regex decimal("[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?");
  if (!std::regex_match(text, decimal)) return false;
  // Below 3.4e38 the f32 rounding stays finite (FLT_MAX is 3.4028e38).
  const double value = std::strtod(text.c_str(), nullptr);
  return value < 3.4e38 && static_cast<float>(value) > 0;
}

void SpecRefusal::operator()(std::string_view field, const json::Value& value, std::string_view allowed,
                             json::Value choices, std::string_view fix) const {
  const std::string name = field.empty() ? std::string(spec_) : std::string(spec_) + "." + std::string(field);
  throw SpecError(std::string(error_class_), name, value, std::move(choices),
                  errors::worded(name, allowed, value, fix));
}

SpecFields::SpecFields(const SpecRefusal& fail, std::span<const std::string_view> names, std::size_t required,
                       const json::Value& obj)
    : fail_(fail) {
  if (!obj.is_object()) fail_("", obj, "a JSON object with the fields " + joined(names), listed(names));
  object_ = &obj.as_object();
  for (const auto& [key, value] : *object_) {
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      fail_(key, key, "one of the fields " + joined(names), listed(names), "drop it or fix its name");
    }
  }
  for (std::string_view name : names.first(required)) {
    if (!has(name)) fail_(name, nullptr, "a value (the field is required)", nullptr, "give it");
  }
}

json::Value SpecFields::get(std::string_view name, const json::Value& fallback) const {
  auto it = object_->find(name);
  return it == object_->end() ? fallback : it->second;
}

std::int64_t SpecFields::positive_int(std::string_view name, const json::Value& fallback, std::string_view why) const {
  const json::Value v = get(name, fallback);
  if (!v.above_int64() && (!v.is_int() || v.as_int() < 1)) fail_(name, v, "a positive int");
  if (v.above_int64() || v.as_int() > kMaxInt) {
    fail_(name, v, "a positive int at most " + std::to_string(kMaxInt) + " (" + std::string(why) + ")", kMaxInt);
  }
  return v.as_int();
}

std::string SpecFields::choice(std::string_view name, std::span<const std::string_view> allowed,
                               const json::Value& fallback) const {
  const json::Value v = get(name, fallback);
  if (!v.is_str() || std::find(allowed.begin(), allowed.end(), v.as_str()) == allowed.end()) {
    fail_(name, v, "one of " + joined(allowed), listed(allowed));
  }
  return v.as_str();
}

bool SpecFields::flag(std::string_view name, bool fallback) const {
  const json::Value v = get(name, fallback);
  if (!v.is_bool()) fail_(name, v, "true or false");
  return v.as_bool();
}

std::string SpecFields::decimal(std::string_view name, const json::Value& fallback, std::string_view allowed) const {
  const json::Value v = get(name, fallback);
  if (!v.is_str() || !positive_decimal(v.as_str())) fail_(name, v, allowed);
  return v.as_str();
}

}  // namespace rocke::family
