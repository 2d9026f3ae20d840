#include "platform/ir/cpp/mma.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "platform/ir/cpp/mma_fragments_data.h"

namespace rocke::ir::mma {

namespace {

namespace data = ::rocke::data::mma_fragments;

// Op id token -> IR scalar type (fp8 is f8e4m3), as mma.py's TYPES. A token
// the data has and this table lacks is a logic_error at first use.
constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
    {"bf16", "bf16"},
    {"f16", "f16"},
    {"f32", "f32"},
    {"fp8", "f8e4m3"},
};

const Type* type_of(std::string_view token) {
  for (const auto& [tok, name] : kTypes) {
    if (tok == token) return scalar(name);
  }
  throw std::logic_error("ir/cpp/mma.cc kTypes: mma_forms.json has the token " + std::string(token) +
                         " and no IR type for it");
}

}  // namespace

std::optional<Shape> shape(std::string_view op_id) {
  for (const auto& f : data::kForms) {
    if (f.op == op_id) return Shape{f.m, f.n, f.k, type_of(f.a), type_of(f.c)};
  }
  return std::nullopt;
}

Fragments fragment_types(std::string_view op_id, std::string_view generation) {
  for (const auto& f : data::kForms) {
    if (f.op == op_id && f.generation == generation) {
      const Type* a = type_of(f.a);
      return Fragments{vector(a, f.a_len), vector(a, f.b_len), vector(type_of(f.c), f.c_len)};
    }
  }
  throw std::out_of_range("mma.fragment_types: mma_forms.json has no form (" + std::string(op_id) + ", " +
                          std::string(generation) + ")");
}

}  // namespace rocke::ir::mma
