// The op schema table, mirroring what platform/ir/op_schema.py loads from
// platform/ir/ops.json (OPS.md): per op its operand, result and region
// counts, its fp8 permission and its attributes. Every fact comes from the
// header generated from ops.json (BUILD.bazel), never from this code. The
// verifier that applies it comes later.
//
//   rocke::ops::schema("scf.for").operands   // {3, is_min = true}
//   rocke::ops::all()                        // every Schema, by name
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"

namespace rocke::ops {

// Python's builder raises VerifyError for an unknown op, with field "op"
// and the name as its value; here it is its own class, with the same facts,
// so a caller can tell it from a verification failure to come.
class UnknownOpError : public errors::FieldError {
 public:
  explicit UnknownOpError(const std::string& name)
      : errors::FieldError("ir.core.VerifyError", "op", name, nullptr,
                           "op: expected a known op, got " + json::quote(name)) {}
};

// ops.json's count: `n` exactly, or at least `n` when the op is variadic
// ({"min": n}).
struct Count {
  int n;
  bool is_min;
};

struct Attr {
  std::string_view name;
  std::string_view kind;   // bool, float, int, int list, number, str
  std::optional<int> min;  // a lower bound on an int attribute
  bool optional;           // an op may leave it out (ops.json "optional": true)
  // The allowed values, or none (empty and !has_values) when any value of the
  // kind is. `table` names the ops.json table they come from, empty when they
  // are listed inline. Only one of ints and strs is used.
  bool has_values;
  std::string_view table;
  std::span<const int> ints;
  std::span<const std::string_view> strs;
};

struct Schema {
  std::string_view name;
  Count operands;
  Count results;
  int regions;
  bool fp8;                 // may take or make fp8 values (fp8 is storage-only)
  std::vector<Attr> attrs;  // by name
};

// Every op, sorted by name.
const std::vector<Schema>& all();

// The Schema of the op called `name`, or nullptr if there is none.
const Schema* find(std::string_view name);

// The Schema of the op called `name`; UnknownOpError, with the facts of
// Python's builder's error, otherwise.
const Schema& schema(std::string_view name);

}  // namespace rocke::ops
