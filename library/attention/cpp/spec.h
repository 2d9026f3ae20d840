// The attention problem and its tile, mirroring library/attention/spec.py: a
// spec read from its JSON (AttentionSpec.from_json), validated field by field
// in Python's order (rocke::family::SpecError with Python's class, field and
// values), and written back (to_json).
//
//   AttentionSpec s = AttentionSpec::from_json(json::parse(R"({"batch":1, ..., "mma":"16x16x16", ...})"));
//   s.op()   // "mma_16x16x16_f16_f32"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/types.h"

namespace rocke::attention {

struct AttentionSpec {
  std::int64_t batch = 0, heads = 0, kv_heads = 0, seq_q = 0, seq_k = 0, head_dim = 0;
  std::string dtype;  // "f16" or "bf16"
  std::string mma;    // "16x16x16"
  std::int64_t block_m = 0, block_n = 0, waves = 0;
  bool causal = false;
  std::string mask = "none";  // "none" or "padding"
  std::string scale = "1/sqrt(head_dim)";
  std::string layout = "bshd";  // "bshd" or "bhsd"
  bool lse = false;

  // AttentionSpec.from_json(obj): rocke::family::SpecError with Python's class, field and values.
  static AttentionSpec from_json(const json::Value& obj);
  // AttentionSpec.to_json(): every field.
  json::Value to_json() const;

  // The matrix op id (mma_forms.json).
  std::string op() const { return "mma_" + mma + "_" + dtype + "_f32"; }
  // AttentionSpec.scale_value: the scale rounded to f32, as a double.
  double scale_value() const;
};

// spec.ELEM: a spec's type name -> its IR type.
const ir::Type* elem(std::string_view name);

// AttentionSpec.from_json(spec).to_json(): the family's spec_json.
json::Value normalised(const json::Value& spec);

}  // namespace rocke::attention
