// The architecture table, mirroring platform/arch/arch.py. Every fact comes
// from the headers generated from platform/arch/archs.json,
// platform/arch/mma_forms.json and platform/arch/flavor_facts.json
// (BUILD.bazel), never from this code.
//
//   rocke::arch::get("gfx942").cus     // 304
//   rocke::arch::all()                 // every Arch, by name
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"

namespace rocke::arch {

// An arch or flavor name the table does not know, with the facts of
// Python's UnknownArchError (arch.py): the field ("arch" or "flavor"), the
// name and the known names.
class UnknownArchError : public errors::FieldError {
 public:
  UnknownArchError(const std::string& field, const std::string& name, json::Value known, const std::string& message)
      : errors::FieldError("arch.arch.UnknownArchError", field, name, std::move(known), message) {}
};

struct MatrixOp {
  std::string_view op;  // target-neutral id, see platform/arch/MMA_FORMS.md
  int m, n, k;
  std::string_view a;  // A/B element type
  std::string_view c;  // C/D element type
  int wave;
};

struct Arch {
  std::string_view name;
  std::string_view generation;  // gfx9, gfx11, gfx12, gfx1250
  int cus;
  int xcds;
  std::span<const int> wave_sizes;    // the default first
  int lds_bytes;                      // static LDS one workgroup may allocate
  int max_workgroup_size;             // lanes per workgroup
  std::span<const int> waves_per_eu;  // {lo, hi}: the occupancy targets the arch can meet
  int vgprs;
  int agprs;
  std::vector<MatrixOp> matrix;           // by op id; from mma_forms.json
  std::vector<std::string_view> flavors;  // the LLVM flavors that know this arch, oldest first
  std::string_view min_llvm;              // the first of them
};

// An arch's LDS banks (arch.LdsBanks), from archs.json beside the Arch
// fields but outside Arch, as in Python.
struct LdsBanks {
  int count;  // banks an LDS access is spread over
  int bytes;  // bytes each bank serves per cycle
};

// Every arch, sorted by name (the order of Python's arch.ARCHS).
const std::vector<Arch>& all();

// The Arch called `name`; UnknownArchError, with Python's facts, otherwise.
const Arch& get(std::string_view name);

// The LdsBanks of arch `name` (arch.lds_banks); get()'s error otherwise.
LdsBanks lds_banks(std::string_view name);

}  // namespace rocke::arch
