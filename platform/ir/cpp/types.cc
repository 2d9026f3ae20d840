#include "platform/ir/cpp/types.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "platform/ir/cpp/types_data.h"

namespace rocke::ir {

namespace data = ::rocke::data::types;

// Every type, made once at first use: the scalars, all their vectors and the
// pointers (a few hundred objects), so lookups never allocate and equal
// types are the same object.
struct Registry {
  std::vector<std::unique_ptr<Type>> storage;
  std::vector<const Type*> scalars;
  std::vector<std::vector<const Type*>> vectors;  // [scalar index][n]
  std::vector<const Type*> ptrs;                  // types.json's order

  Registry() {
    for (const auto& s : data::kScalars) {
      Type& t = make();
      t.str_ = s.name;
      t.int_ = s.kind == "int";
      t.bits_ = s.bits;
      scalars.push_back(&t);
    }
    for (const Type* elem : scalars) {
      auto& by_n = vectors.emplace_back(data::kMaxLanes + 1, nullptr);
      for (int n = 2; n <= data::kMaxLanes; ++n) {
        Type& t = make();
        t.kind_ = TypeKind::kVector;
        t.str_ = "vector<" + std::to_string(n) + "x" + elem->str() + ">";
        t.elem_ = elem;
        t.n_ = n;
        by_n[n] = &t;
      }
    }
    for (const auto& a : data::kAddressSpaces) {
      Type& t = make();
      t.kind_ = TypeKind::kPtr;
      t.str_ = "ptr<" + std::string(a.name) + ">";
      t.space_ = a.name;
      t.addrspace_ = a.number;
      ptrs.push_back(&t);
    }
  }

  Type& make() {
    storage.push_back(std::unique_ptr<Type>(new Type()));
    return *storage.back();
  }

  static const Registry& get() {
    static const Registry registry;
    return registry;
  }
};

int Type::nbytes() const {
  switch (kind_) {
    case TypeKind::kScalar:
      return std::max(1, bits_ / 8);
    case TypeKind::kVector:
      return n_ * elem_->nbytes();
    case TypeKind::kPtr:
      break;
  }
  throw std::logic_error("nbytes: expected a scalar or vector type, got " + str_);
}

int max_lanes() { return data::kMaxLanes; }

std::span<const Type* const> scalars() { return Registry::get().scalars; }

const Type* scalar(std::string_view name) {
  for (const Type* t : scalars()) {
    if (t->str() == name) return t;
  }
  std::string known;
  json::Array allowed;
  for (const Type* t : scalars()) {
    known += (known.empty() ? "" : ", ") + t->str();
    allowed.emplace_back(t->str());
  }
  throw BadTypeError("scalar", "one of " + known, json::quote(name), std::string(name), std::move(allowed));
}

const Type* vector(const Type* elem, int n) {
  const Registry& r = Registry::get();
  const auto it = std::find(r.scalars.begin(), r.scalars.end(), elem);
  if (it == r.scalars.end()) {
    throw BadTypeError("vector", "a scalar element type", elem ? elem->str() : "a null type",
                       elem ? json::Value(elem->str()) : json::Value());
  }
  if (n < 2 || n > data::kMaxLanes) {
    throw BadTypeError("vector", "a length in 2.." + std::to_string(data::kMaxLanes), std::to_string(n), n);
  }
  return r.vectors[it - r.scalars.begin()][n];
}

const Type* ptr(std::string_view space) {
  const Registry& r = Registry::get();
  for (const Type* t : r.ptrs) {
    if (t->space() == space) return t;
  }
  std::vector<std::string> names;
  for (const Type* t : r.ptrs) names.emplace_back(t->space());
  std::sort(names.begin(), names.end());
  const json::Array allowed(names.begin(), names.end());
  throw BadTypeError("ptr", "an address space in " + json::canonical(allowed), json::quote(space), std::string(space),
                     allowed);
}

}  // namespace rocke::ir
