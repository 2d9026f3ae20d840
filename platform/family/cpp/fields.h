// A spec's JSON fields, read and refused as Python's family.cases_json.spec_fields
// and the specs' __post_init__ checks do: each refusal a family::SpecError of
// the spec's Python class, naming SPEC.field, the value and what is allowed.
// A family's from_json reads every field through one SpecFields.
//
//   constexpr std::array<std::string_view, 3> kFields = {"rows", "dtype", "eps"};
//   constexpr family::SpecRefusal fail("norm.spec.SpecError", "NormSpec");
//   const family::SpecFields f(fail, kFields, 2, obj);
//   s.rows = f.positive_int("rows");             // refuses 0, true, 2**31
//   s.dtype = f.choice("dtype", kDtypes);        // refuses "f64", naming kDtypes
//   s.eps = f.decimal("eps", "1e-5", "a positive decimal string such as '1e-5'");
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "platform/cpp/json/json.h"

namespace rocke::family {

// The kernels' sizes and offsets are i32: the largest a spec's int field takes.
inline constexpr std::int64_t kMaxInt = INT32_MAX;

// "a, b, c": names as a message lists them.
template <class Names>
std::string joined(const Names& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

// The names as a JSON list (a refusal's allowed values).
template <class Names>
json::Array listed(const Names& names) {
  json::Array out;
  for (const auto& name : names) out.emplace_back(std::string(name));
  return out;
}

// The decimal digits of a non-negative 128-bit count (a tensor's bytes may pass 64 bits).
std::string digits(unsigned __int128 x);
// fields.positive_decimal: `text` spells a decimal (digits, an optional
// fraction and exponent) that stays positive and finite rounded to f32.
bool positive_decimal(const std::string& text);

// Refusals of one spec: a SpecError of Python class `error_class` for
// SPEC.`field` (SPEC alone for an empty field).
//
//   constexpr family::SpecRefusal fail("norm.spec.SpecError", "NormSpec");
//   fail("threads", 96, "a multiple of 64 at most 1024", 1024);
class SpecRefusal {
 public:
  constexpr SpecRefusal(std::string_view error_class, std::string_view spec) : error_class_(error_class), spec_(spec) {}
  [[noreturn]] void operator()(std::string_view field, const json::Value& value, std::string_view allowed,
                               json::Value choices = nullptr, std::string_view fix = "") const;

 private:
  std::string_view error_class_, spec_;
};

// The fields of a spec's JSON object: the constructor refuses a non-object,
// an unknown key (the first in key order, as Python meets it in a canonical
// list) and a missing one of the first `required` names; each reader refuses
// a value of the wrong kind. A field the object leaves out reads as `fallback`.
class SpecFields {
 public:
  SpecFields(const SpecRefusal& fail, std::span<const std::string_view> names, std::size_t required,
             const json::Value& obj);

  const json::Object& object() const { return *object_; }
  bool has(std::string_view name) const { return object_->contains(name); }
  json::Value get(std::string_view name, const json::Value& fallback = nullptr) const;
  // An int from 1 to kMaxInt; `why` says why kMaxInt in the refusal of a larger one.
  std::int64_t positive_int(std::string_view name, const json::Value& fallback = nullptr,
                            std::string_view why = "an i32 in the kernel") const;
  std::string choice(std::string_view name, std::span<const std::string_view> allowed,
                     const json::Value& fallback = nullptr) const;
  bool flag(std::string_view name, bool fallback) const;
  // A positive_decimal string; `allowed` words the refusal ("a positive decimal such as '0.125'").
  std::string decimal(std::string_view name, const json::Value& fallback, std::string_view allowed) const;

 private:
  SpecRefusal fail_;
  const json::Object* object_;
};

}  // namespace rocke::family
