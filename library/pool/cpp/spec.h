// The pooling problem, mirroring library/pool/spec.py: a spec read from its
// JSON (PoolSpec.from_json), validated field by field in Python's order
// (rocke::family::SpecError with Python's class, field and values; the
// messages are this engine's own), and written back (to_json).
//
//   PoolSpec s = PoolSpec::from_json(json::parse(R"({"n":1,"c":64,"spatial":[12,12],"kind":"max","window":[3,3]})"));
//   s.output()   // {4, 4}
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/types.h"

namespace rocke::pool {

using Shape = std::vector<std::int64_t>;

struct PoolSpec {
  std::int64_t n = 0, c = 0;
  Shape spatial;     // (h, w) or (d, h, w)
  std::string kind;  // "max" or "avg"
  Shape window, stride, pad, pad_end;
  bool count_pad = false;
  std::string layout = "NHWC";  // "NHWC" or "NCHW"
  std::string dtype = "f16";    // "f16", "bf16" or "f32"

  // PoolSpec.from_json(obj): rocke::family::SpecError with Python's class, field and values.
  static PoolSpec from_json(const json::Value& obj);
  // PoolSpec.to_json(): every field, tuples as lists.
  json::Value to_json() const;

  int dims() const { return static_cast<int>(spatial.size()); }
  bool channels_last() const { return layout == "NHWC"; }
  // The output's spatial sizes (valid specs only: every size >= 1).
  Shape output() const;
};

// spec.ELEM: a spec's type name -> its IR type.
const ir::Type* elem(std::string_view name);

// PoolSpec.from_json(spec).to_json(): the family's spec_json.
json::Value normalised(const json::Value& spec);

}  // namespace rocke::pool
