// IR types, mirroring platform/ir/types.py: scalars, vectors of scalars and
// pointers with an address space. Interned: each distinct type is one object,
// so equal types are the same pointer. The scalars, address spaces and the
// longest vector come from platform/ir/types.json through a generated header.
//
//   const Type* v = rocke::ir::vector(rocke::ir::scalar("f16"), 4);
//   v->str()                                    // "vector<4xf16>"
//   v == rocke::ir::vector(rocke::ir::scalar("f16"), 4)   // true
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"

namespace rocke::ir {

// A type built from bad parts: "WHERE: expected X, got Y", with the facts
// of Python's BadTypeError (types.py): field WHERE, the value received, and
// the allowed values where they are a list.
class BadTypeError : public errors::FieldError {
 public:
  BadTypeError(const std::string& where, const std::string& what, const std::string& got, json::Value value,
               json::Value allowed = nullptr)
      : errors::FieldError("ir.types.BadTypeError", where, std::move(value), std::move(allowed),
                           where + ": expected " + what + ", got " + got) {}
};

enum class TypeKind { kScalar, kVector, kPtr };

class Type {
 public:
  Type(const Type&) = delete;
  Type& operator=(const Type&) = delete;

  TypeKind kind() const { return kind_; }
  // Python's str(): i32, vector<4xf16>, ptr<global>.
  const std::string& str() const { return str_; }

  bool is_int() const { return kind_ != TypeKind::kPtr && element()->int_; }
  bool is_float() const { return kind_ != TypeKind::kPtr && !element()->int_; }
  // Scalar: its bits. Vector and pointer: 0 (Python has no such field).
  int bits() const { return bits_; }
  // Bytes of a scalar (at least 1) or vector; std::logic_error for a pointer.
  int nbytes() const;
  // types.element(): the scalar of a vector, the type itself otherwise.
  const Type* element() const { return kind_ == TypeKind::kVector ? elem_ : this; }
  // types.lanes(): N for vector<NxT>, 1 otherwise.
  int lanes() const { return kind_ == TypeKind::kVector ? n_ : 1; }
  // Pointer: the address space's name and AMDGPU number.
  std::string_view space() const { return space_; }
  int addrspace() const { return addrspace_; }

 private:
  friend struct Registry;
  Type() = default;

  TypeKind kind_ = TypeKind::kScalar;
  std::string str_;
  bool int_ = false;
  int bits_ = 0;
  const Type* elem_ = nullptr;
  int n_ = 0;
  std::string_view space_;
  int addrspace_ = 0;
};

// The longest vector (types.MAX_LANES).
int max_lanes();
// Every scalar type, in types.json's order (types.SCALARS).
std::span<const Type* const> scalars();
// The scalar type called `name`; BadTypeError otherwise.
const Type* scalar(std::string_view name);
// vector<n x elem>: elem a scalar type, n in 2..max_lanes().
const Type* vector(const Type* elem, int n);
// ptr<space>, space one of types.json's address spaces.
const Type* ptr(std::string_view space);

}  // namespace rocke::ir
