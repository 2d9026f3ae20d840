// The lowering's plumbing (llvm.py's _Emitter): fresh value and label names
// in program order, the body's lines, the sorted declarations and globals.
// Internal to :lower; lower.cc holds the op lowerings, fp8_ir.cc the fp8 ones.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "platform/arch/cpp/arch.h"
#include "platform/ir/cpp/core.h"
#include "platform/lower/cpp/flavors.h"

namespace rocke::lower {

// The module's globals, in the order they are emitted (llvm.GLOBAL_KINDS);
// within a kind, by key: lds by its number, fp8 tables by format name.
enum class GlobalKind { kLds = 0, kFp8Table = 1 };

// The metadata node of gpu.lds_barrier's fences (!0 is the module flag).
inline constexpr int kLdsOnlyMmra = 1;
// The node that keeps LLVM from unrolling a matrix loop, and the first loop id
// (llvm.py's NO_UNROLL, MATRIX_LOOP_0).
inline constexpr int kNoUnroll = 2;
inline constexpr int kMatrixLoop0 = 3;

// Each IR value's LLVM name: the kernel's own values in a vector by
// Value::index (the lowering names every value, and a hash map of pointers
// was a large part of its time), any other in a map.
class ValueNames {
 public:
  explicit ValueNames(const ir::Kernel& kernel)
      : kernel_(kernel), own_(kernel.values.size()), set_(kernel.values.size(), 0) {}
  std::string& operator[](const ir::Value* v) {
    if (!kernel_.owns(v)) return other_[v];
    set_[v->index] = 1;
    return own_[v->index];
  }
  // std::out_of_range for a value not named yet, as unordered_map::at.
  const std::string& at(const ir::Value* v) const {
    if (!kernel_.owns(v)) return other_.at(v);
    if (!set_[v->index]) throw std::out_of_range("lower: a value used before it is named");
    return own_[v->index];
  }

 private:
  const ir::Kernel& kernel_;
  std::vector<std::string> own_;
  std::vector<char> set_;
  std::unordered_map<const ir::Value*, std::string> other_;
};

struct Emitter {
  Emitter(const ir::Kernel& kernel, const Flavor& flavor, const arch::Arch& arch)
      : kernel(kernel), flavor(flavor), arch(arch), values(kernel) {
    for (const ir::Value* a : kernel.args) values[a] = "%arg." + a->name;
  }

  const ir::Kernel& kernel;
  const Flavor& flavor;
  const arch::Arch& arch;
  std::vector<std::string> lines;
  ValueNames values;
  int next_value = 0;
  int next_label = 0;
  int next_lds = 0;
  bool lds_only_fences = false;  // a gpu.lds_barrier needs its metadata node
  int matrix_loops = 0;          // scf.for ops holding a matrix.mma: each needs a loop id
  // The s_waitcnt every barrier starts with where the kernel writes LDS
  // asynchronously (lds_ops.json's barrier_wait; llvm.py's).
  std::optional<int> barrier_wait;
  std::string label = "entry";
  std::map<std::string, std::string> declares;  // intrinsic name -> declaration
  std::map<std::tuple<int, std::int64_t, std::string>, std::string> globals;

  std::string fresh() { return "%v" + std::to_string(next_value++); }
  std::string new_label(const std::string& stem) { return stem + std::to_string(next_label++); }
  void emit(std::string_view text) { lines.push_back(indented("", text)); }
  void start_block(const std::string& name) {
    lines.push_back(name + ":");
    label = name;
  }
  std::string inst(std::string_view text) {
    std::string name = fresh();
    lines.push_back(indented(name, text));
    return name;
  }
  // "  NAME = TEXT", or "  TEXT" without a name, built in place.
  static std::string indented(std::string_view name, std::string_view text) {
    std::string line;
    line.reserve(name.size() + text.size() + 5);
    line += "  ";
    if (!name.empty()) {
      line += name;
      line += " = ";
    }
    line += text;
    return line;
  }
  // "TYPE NAME" of an IR value.
  std::string arg(const ir::Value* v) const;
  // Calls an intrinsic, declaring it; each argument is "TYPE VALUE". Returns
  // the result's name ("" for void). `flags`: fast-math flags of the call,
  // each followed by a space ("nnan ").
  std::string call(const std::string& ret, const std::string& name, const std::vector<std::string>& args,
                   const std::string& flags = "");
  void add_global(GlobalKind kind, std::int64_t number, const std::string& name, const std::string& definition) {
    globals[{static_cast<int>(kind), number, name}] = definition;
  }
};

}  // namespace rocke::lower
