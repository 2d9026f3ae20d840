// conv_igemm_wgrad's spec, mirroring WgradSpec of library/conv/wgrad_spec.py:
// an IgemmSpec (the problem and the tile, validated as conv_igemm_fwd's)
// with the split of the reduction and its mode ("none", "two_stage",
// "atomic"), read from its JSON, validated in Python's order (a
// family::SpecError of Python's WgradSpecError, with its field and values),
// and written back.
//
//   WgradSpec s = WgradSpec::from_json(json::parse(R"({"igemm": {...}, "split": 4, "mode": "two_stage"})"));
//   s.gemm()   // {filters per group, C/groups x taps, N x output pixels}
//   s.rows(1)  // the reduction rows split 1 owns
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "library/conv/cpp/igemm_spec.h"
#include "platform/cpp/json/json.h"

namespace rocke::conv {

struct WgradSpec {
  IgemmSpec igemm;
  std::int64_t split = 1;
  std::string mode = "none";

  // WgradSpec.from_json(obj): SpecError of Python's WgradSpecError (or
  // IgemmSpec's, for a bad igemm).
  static WgradSpec from_json(const json::Value& obj);
  json::Value to_json() const;

  const ConvSpec& conv() const { return igemm.conv; }
  // (M, N, K) of each group's GEMM.
  std::array<std::int64_t, 3> gemm() const;
  // T: the reduction's k steps.
  std::int64_t steps() const;
  // (first, end) reduction rows split `part` owns.
  std::pair<std::int64_t, std::int64_t> rows(std::int64_t part) const;
  // E: dw's elements.
  std::int64_t elements() const;
  // What the kernel writes: dw, or the S slices of the workspace.
  std::int64_t out_elements() const;
  // The kernel's output type: the input type unsplit, f32 split.
  std::string out_dtype() const { return mode == "none" ? conv().dtype : "f32"; }
};

// WgradSpec.from_json(spec).to_json(): the family's spec_json.
json::Value wgrad_normalised(const json::Value& spec);

}  // namespace rocke::conv
