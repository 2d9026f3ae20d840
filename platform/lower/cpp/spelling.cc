#include "platform/lower/cpp/spelling.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "platform/ir/cpp/literals.h"
#include "platform/lower/cpp/floats.h"

namespace rocke::lower {

namespace {

// IR scalar -> LLVM type (spelling.py's _SCALAR); fp8 is storage-only, an i8 code.
struct Spelled {
  const char* ir;
  const char* llvm;
};
constexpr Spelled kScalar[] = {
    {"i1", "i1"},    {"i8", "i8"},       {"i16", "i16"},   {"i32", "i32"},   {"i64", "i64"},
    {"f16", "half"}, {"bf16", "bfloat"}, {"f32", "float"}, {"f8e4m3", "i8"}, {"f8e5m2", "i8"},
};

std::string scalar(const ir::Type* t) {
  for (const Spelled& s : kScalar) {
    if (t->str() == s.ir) return s.llvm;
  }
  throw std::logic_error("ltype: no LLVM spelling for " + t->str());
}

std::string hex4(const char* prefix, unsigned bits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%s%04X", prefix, bits);
  return buf;
}

std::string spell(const ir::Type* t) {
  switch (t->kind()) {
    case ir::TypeKind::kPtr:
      return "ptr addrspace(" + std::to_string(t->addrspace()) + ")";
    case ir::TypeKind::kVector:
      return "<" + std::to_string(t->lanes()) + " x " + scalar(t->element()) + ">";
    case ir::TypeKind::kScalar:
      break;
  }
  return scalar(t);
}

}  // namespace

const std::string& ltype(const ir::Type* t) {
  // Types are interned and live forever, and the lowering spells one for
  // nearly every instruction: remember each spelling (per thread, so that
  // engines on several threads share nothing).
  thread_local std::unordered_map<const ir::Type*, std::string> spelled;
  auto it = spelled.find(t);
  if (it == spelled.end()) it = spelled.emplace(t, spell(t)).first;
  return it->second;
}

std::string suffix(const ir::Type* t) {
  if (t->kind() == ir::TypeKind::kVector) return "v" + std::to_string(t->lanes()) + suffix(t->element());
  const std::string& l = ltype(t);
  if (l == "half") return "f16";
  if (l == "bfloat") return "bf16";
  if (l == "float") return "f32";
  return l;
}

std::string float_literal(double value, const ir::Type* t) {
  const std::string& name = t->str();
  if (name == "f32") return ir::float_text(f32_round(value));
  if (name == "f16") return hex4("0xH", f16_bits(value));
  if (name == "bf16") return hex4("0xR", bf16_bits(value));
  throw std::logic_error("literal: no float constant spelling for " + name + " (fp8 is storage-only)");
}

std::string literal(const ir::AttrValue& value, const ir::Type* t) {
  if (t->str() == "i1") return (value.is_bool() ? value.as_bool() : value.as_int() != 0) ? "true" : "false";
  if (t->is_int()) return std::to_string(value.as_int());
  return float_literal(value.is_int() ? static_cast<double>(value.as_int()) : value.as_float(), t);
}

}  // namespace rocke::lower
