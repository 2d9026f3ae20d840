// FieldError, the C++ twin of platform/errors/errors.py: an error a caller
// causes with a bad value, with its facts as data beside the message:
// `field` (what the value is for: "ConvSpec.groups", "flavor"), `value`
// (what was received) and `allowed` (the allowed values where they are a
// list or a limit, else null). `python_class` names the Python class the
// pybind engines raise (platform/cpp/engine/errors.h), with the same three
// attributes, so the engines' parity tests compare the class and the facts;
// each engine words its own message.
//
//   throw FieldError("conv.spec.SpecError", "ConvSpec.layout", value, json::Array{"NHWC", "NCHW"},
//                    worded("ConvSpec.layout", "one of NHWC, NCHW", value));
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "platform/cpp/json/json.h"

namespace rocke::errors {

// The Python class of an error with no class of its own: FieldError itself.
inline constexpr const char* kFieldError = "errors.errors.FieldError";

class FieldError : public std::invalid_argument {
 public:
  FieldError(std::string python_class, std::string field, json::Value value, json::Value allowed,
             const std::string& message);

  // The Python class's module path and name: "conv.img2col.Img2colSpecError".
  const std::string& python_class() const { return python_class_; }
  // type(e).__name__ in Python: the class path's last name.
  std::string class_name() const;
  const std::string& field() const { return field_; }
  const json::Value& value() const { return value_; }
  const json::Value& allowed() const { return allowed_; }
  // [class name, field, value, allowed]: Python's FieldError.facts().
  json::Array facts() const;

 private:
  std::string python_class_;
  std::string field_;
  json::Value value_;
  json::Value allowed_;
};

// The candidate nearest `word` (fewest single-character edits or swaps of
// neighbours, ASCII case ignored, the first of equals) if it is within a third of its length (at
// least 1 edit), else "": a "did you mean" hint. Python's hints come from
// difflib and may differ; the engines' parity tests compare facts, not hints.
std::string_view closest(std::string_view word, std::span<const std::string_view> candidates);

// "FIELD: expected ALLOWED, got VALUE" (VALUE as JSON text), then "; FIX"
// if a fix is given: the C++ engine's one wording of a FieldError.
std::string worded(std::string_view field, std::string_view allowed, const json::Value& value,
                   std::string_view fix = "");

}  // namespace rocke::errors
