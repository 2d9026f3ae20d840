// The norm problem and its tile, mirroring library/norm/spec.py: a spec read
// from its JSON (NormSpec.from_json), validated field by field in Python's
// order (rocke::family::SpecError with Python's class, field and values), and
// written back (to_json).
//
//   NormSpec s = NormSpec::from_json(json::parse(R"({"kind":"layernorm","rows":2,"dim":768, ...})"));
//   s.vec()   // 8: 16 bytes of f16
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/types.h"

namespace rocke::norm {

struct NormSpec {
  std::string kind;  // "layernorm" or "rmsnorm"
  std::int64_t rows = 0, dim = 0;
  std::string dtype;  // "f16", "bf16" or "f32"
  std::string eps;    // a positive decimal
  std::int64_t threads = 0, per_lane = 0;
  bool affine = true, residual = false, residual_out = false;

  // NormSpec.from_json(obj): rocke::family::SpecError with Python's class, field and values.
  static NormSpec from_json(const json::Value& obj);
  // NormSpec.to_json(): every field.
  json::Value to_json() const;

  // NormSpec.eps_value: eps rounded to f32, as a double.
  double eps_value() const;
  // NormSpec.vec: elements a lane moves at once.
  int vec() const;
  // NormSpec.chunk and NormSpec.chunks.
  std::int64_t chunk() const { return threads * per_lane; }
  std::int64_t chunks() const { return (dim + chunk() - 1) / chunk(); }
};

// spec.ELEM: a spec's type name -> its IR type.
const ir::Type* elem(std::string_view name);

// spec.f32: x rounded to the nearest f32, as a double.
double f32(double x);

// NormSpec.from_json(spec).to_json(): the family's spec_json.
json::Value normalised(const json::Value& spec);

}  // namespace rocke::norm
