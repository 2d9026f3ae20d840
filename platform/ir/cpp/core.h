// The IR's structure, mirroring platform/ir/core.py: values, ops, blocks and
// kernels. A kernel owns every value and op it holds; values are compared by
// identity (pointer), and their text names are chosen by the printer.
//
// Attributes are a sorted map (Python prints them sorted by key) of
// AttrValue: bool, int, float (double), str, or a list of them, the values
// ops.json's attribute kinds allow (platform/ir/OPS.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/types.h"

namespace rocke::ir {

// How deeply regions may nest (core.MAX_NESTING).
inline constexpr int kMaxNesting = 100;

// A kernel breaks an IR rule: "WHERE: expected X, got Y", with the facts of
// Python's VerifyError (core.py): field WHERE and value Y (a name as it is,
// an attribute value as the .rk text spells it, a list of names as a list,
// else the text the message shows, `got`).
class VerifyError : public errors::FieldError {
 public:
  VerifyError(const std::string& where, const std::string& what, const std::string& got)
      : VerifyError(where, what, got, got) {}
  VerifyError(const std::string& where, const std::string& what, const std::string& got, json::Value value)
      : errors::FieldError("ir.core.VerifyError", where, std::move(value), nullptr,
                           where + ": expected " + what + ", got " + got) {}
};

struct AttrValue;
using AttrList = std::vector<AttrValue>;

// One attribute value. The alternatives are Python's bool, int, float, str
// and list; the order matters only to std::variant.
struct AttrValue {
  std::variant<bool, std::int64_t, double, std::string, AttrList> v;

  // NOLINTBEGIN(misc-explicit-constructor): implicit on purpose, so that
  // attributes are written as literals ({{"value", 1}}), as in Python.
  AttrValue(bool b) : v(b) {}
  AttrValue(int i) : v(std::int64_t{i}) {}
  AttrValue(std::int64_t i) : v(i) {}
  AttrValue(double d) : v(d) {}
  AttrValue(const char* s) : v(std::string(s)) {}
  AttrValue(std::string s) : v(std::move(s)) {}
  AttrValue(AttrList l) : v(std::move(l)) {}
  // NOLINTEND(misc-explicit-constructor)

  bool is_bool() const { return std::holds_alternative<bool>(v); }
  bool is_int() const { return std::holds_alternative<std::int64_t>(v); }
  bool is_float() const { return std::holds_alternative<double>(v); }
  bool is_str() const { return std::holds_alternative<std::string>(v); }
  bool is_list() const { return std::holds_alternative<AttrList>(v); }
  bool as_bool() const { return std::get<bool>(v); }
  std::int64_t as_int() const { return std::get<std::int64_t>(v); }
  double as_float() const { return std::get<double>(v); }
  const std::string& as_str() const { return std::get<std::string>(v); }
  const AttrList& as_list() const { return std::get<AttrList>(v); }

  bool operator==(const AttrValue&) const = default;
};

using Attrs = std::map<std::string, AttrValue, std::less<>>;

struct Value {
  const Type* type;
  std::string name;  // kept for kernel arguments; others are numbered when printed
  // Its position in its kernel's `values` (set by Kernel::new_value), so a
  // pass over one kernel keeps per-value facts in a vector indexed by it
  // rather than in a hash map of pointers (Kernel::owns first).
  std::size_t index = 0;
};

struct Op;

struct Block {
  std::vector<Value*> args;
  std::vector<std::unique_ptr<Op>> ops;
};

struct Op {
  std::string name;
  std::vector<Value*> operands;
  std::vector<Value*> results;
  Attrs attrs;
  std::vector<Block> regions;

  // The single result; VerifyError("NAME: expected exactly one result, got N") otherwise.
  Value* result() const;
};

struct Kernel {
  std::string name;
  std::vector<Value*> args;
  Attrs attrs;  // arch (str), wave_size (int), workgroup_size (int list), waves_per_eu (int, optional)
  Block body;
  // Owns every Value of the kernel (arguments, results, block arguments).
  std::vector<std::unique_ptr<Value>> values;

  Value* new_value(const Type* type, std::string name = "");
  // Whether `v` is one of this kernel's values (false for nullptr or a value
  // of another kernel): then values[v->index] is v.
  bool owns(const Value* v) const { return v != nullptr && v->index < values.size() && values[v->index].get() == v; }
  const std::string& arch() const { return attrs.at("arch").as_str(); }
};

// Every op of `block` and its nested regions, in program order (core.walk).
std::vector<const Op*> walk(const Block& block);

}  // namespace rocke::ir
