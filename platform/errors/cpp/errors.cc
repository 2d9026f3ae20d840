#include "platform/errors/cpp/errors.h"

#include <utility>

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

std::string worded(std::string_view field, std::string_view allowed, const json::Value& value, std::string_view fix) {
  std::string out = std::string(field) + ": expected " + std::string(allowed) + ", got " + json::canonical(value);
  if (!fix.empty()) out += "; " + std::string(fix);
  return out;
}

}  // namespace rocke::errors
