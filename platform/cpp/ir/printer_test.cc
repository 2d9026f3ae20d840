// The printer: a kernel built by hand prints as printer.py's format states
// (kernel arguments by name, every other value numbered in order of first
// appearance, attributes sorted, regions as "} {").
#include <memory>

#include "platform/cpp/ir/core.h"
#include "platform/cpp/ir/printer.h"
#include "platform/cpp/ir/printer_test_text.h"
#include "platform/cpp/testing/check.h"

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

int main() { return rocke::testing::run_all(); }
