// The lowering's plumbing (llvm.py's _Emitter): fresh value and label names
// in program order, the body's lines, the sorted declarations and globals.
// Internal to :lower; lower.cc holds the op lowerings, fp8_ir.cc the fp8 ones.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "platform/cpp/arch/arch.h"
#include "platform/cpp/ir/core.h"
#include "platform/cpp/lower/flavors.h"

namespace rocke::lower {

// The module's globals, in the order they are emitted (llvm.GLOBAL_KINDS);
// within a kind, by key: lds by its number, fp8 tables by format name.
enum class GlobalKind { kLds = 0, kFp8Table = 1 };

// The metadata node of gpu.lds_barrier's fences (!0 is the module flag).
inline constexpr int kLdsOnlyMmra = 1;

struct Emitter {
  Emitter(const ir::Kernel& kernel, const Flavor& flavor, const arch::Arch& arch) : kernel(kernel), flavor(flavor), arch(arch) {
    for (const ir::Value* a : kernel.args) values[a] = "%arg." + a->name;
  }

  const ir::Kernel& kernel;
  const Flavor& flavor;
  const arch::Arch& arch;
  std::vector<std::string> lines;
  std::unordered_map<const ir::Value*, std::string> values;
  int next_value = 0;
  int next_label = 0;
  int next_lds = 0;
  bool lds_only_fences = false;  // a gpu.lds_barrier needs its metadata node
  std::string label = "entry";
  std::map<std::string, std::string> declares;  // intrinsic name -> declaration
  std::map<std::tuple<int, std::int64_t, std::string>, std::string> globals;

  std::string fresh() { return "%v" + std::to_string(next_value++); }
  std::string new_label(const std::string& stem) { return stem + std::to_string(next_label++); }
  void emit(const std::string& text) { lines.push_back("  " + text); }
  void start_block(const std::string& name) {
    lines.push_back(name + ":");
    label = name;
  }
  std::string inst(const std::string& text) {
    std::string name = fresh();
    emit(name + " = " + text);
    return name;
  }
  // "TYPE NAME" of an IR value.
  std::string arg(const ir::Value* v);
  // Calls an intrinsic, declaring it; each argument is "TYPE VALUE". Returns
  // the result's name ("" for void).
  std::string call(const std::string& ret, const std::string& name, const std::vector<std::string>& args);
  void add_global(GlobalKind kind, std::int64_t number, const std::string& name, const std::string& definition) {
    globals[{static_cast<int>(kind), number, name}] = definition;
  }
};

}  // namespace rocke::lower
