// The softmax problem and its tile, mirroring library/softmax/spec.py: a spec
// read from its JSON (SoftmaxSpec.from_json), validated field by field in
// Python's order (rocke::family::SpecError with Python's class, field and
// values), and written back (to_json).
//
//   SoftmaxSpec s = SoftmaxSpec::from_json(json::parse(R"({"rows":8,"dim":1000,"dtype":"bf16"})"));
//   s.vector()   // 8: elements a lane moves at once
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/types.h"

namespace rocke::softmax {

struct SoftmaxSpec {
  std::int64_t rows = 0, dim = 0;
  std::string dtype = "f16";  // "f16", "bf16" or "f32"
  bool mask = false;
  std::string scale = "1";
  std::int64_t waves = 4, lane_elements = 32;

  // SoftmaxSpec.from_json(obj): rocke::family::SpecError with Python's class, field and values.
  static SoftmaxSpec from_json(const json::Value& obj);
  // SoftmaxSpec.to_json(): every field.
  json::Value to_json() const;

  // SoftmaxSpec.scale_value: the scale rounded to f32, as a double.
  double scale_value() const;
  // SoftmaxSpec.vector: elements a lane loads or stores at once.
  int vector() const;
};

// spec.ELEM: a spec's type name -> its IR type.
const ir::Type* elem(std::string_view name);

// SoftmaxSpec.from_json(spec).to_json(): the family's spec_json.
json::Value normalised(const json::Value& spec);

}  // namespace rocke::softmax
