// The printer: a kernel built by hand prints as printer.py's format states
// (kernel arguments by name, every other value numbered in order of first
// appearance, attributes sorted, regions as "} {").
#include "platform/ir/cpp/printer.h"

#include <memory>

#include "platform/cpp/testing/check.h"
#include "platform/ir/cpp/core.h"
#include "platform/ir/cpp/printer_test_text.h"

using namespace rocke::ir;

namespace {

std::unique_ptr<Op> op(const char* name, std::vector<Value*> operands, std::vector<Value*> results, Attrs attrs = {}) {
  auto o = std::make_unique<Op>();
  o->name = name;
  o->operands = std::move(operands);
  o->results = std::move(results);
  o->attrs = std::move(attrs);
  return o;
}

}  // namespace

ROCKE_TEST(a_built_kernel_prints_as_the_format_states) {
  Kernel k;
  k.name = "k";
  // Inserted out of order: attributes print sorted by key.
  k.attrs.emplace("workgroup_size", AttrList{64, 1, 1});
  k.attrs.emplace("arch", "gfx942");
  k.attrs.emplace("wave_size", 64);
  Value* n = k.new_value(scalar("i32"), "n");
  Value* out = k.new_value(ptr("global"), "out");
  k.args = {n, out};
  const Type* f32 = scalar("f32");
  const Type* i32 = scalar("i32");
  Value* one = k.new_value(f32);
  Value* zero = k.new_value(i32);
  Value* step = k.new_value(i32);
  k.body.ops.push_back(op("arith.const", {}, {one}, {{"value", 1.0}}));
  k.body.ops.push_back(op("arith.const", {}, {zero}, {{"value", 0}}));
  k.body.ops.push_back(op("arith.const", {}, {step}, {{"value", 1}}));
  Value* sum = k.new_value(f32);
  auto loop = op("scf.for", {zero, n, step, one}, {sum});
  Block body;
  Value* iv = k.new_value(i32);
  Value* acc = k.new_value(f32);
  body.args = {iv, acc};
  Value* next = k.new_value(f32);
  body.ops.push_back(op("arith.add", {acc, one}, {next}));
  body.ops.push_back(op("scf.yield", {next}, {}));
  loop->regions.push_back(std::move(body));
  k.body.ops.push_back(std::move(loop));
  Value* cond = k.new_value(scalar("i1"));
  k.body.ops.push_back(op("arith.cmp", {n, zero}, {cond}, {{"pred", "lt"}}));
  auto branch = op("scf.if", {cond}, {});
  Block then, else_;
  then.ops.push_back(op("mem.store", {out, sum}, {}));
  then.ops.push_back(op("scf.yield", {}, {}));
  else_.ops.push_back(op("scf.yield", {}, {}));
  branch->regions.push_back(std::move(then));
  branch->regions.push_back(std::move(else_));
  k.body.ops.push_back(std::move(branch));
  CHECK_EQ(print_kernel(k), testing::kText);
}

ROCKE_TEST(values_of_another_kernel_are_numbered_too) {
  // An unverified kernel may name values it does not own: they are numbered
  // in order of appearance with its own (as Python's printer does), and an
  // argument it does not own keeps its name.
  Kernel k, other;
  k.name = "k";
  Value* own_arg = k.new_value(scalar("i32"), "n");
  Value* foreign_arg = other.new_value(scalar("i32"), "m");
  k.args = {own_arg, foreign_arg};
  Value* foreign = other.new_value(scalar("i32"));
  Value* mine = k.new_value(scalar("i32"));
  Value* mine2 = k.new_value(scalar("i32"));
  k.body.ops.push_back(op("arith.add", {foreign, own_arg}, {mine}));
  k.body.ops.push_back(op("arith.add", {foreign_arg, foreign}, {mine2}));
  CHECK_EQ(print_kernel(k),
           "kernel @k(%n: i32, %m: i32) {\n"
           "  %0 = arith.add(%1, %n) : i32\n"
           "  %2 = arith.add(%m, %1) : i32\n"
           "}\n");
}

int main() { return rocke::testing::run_all(); }
