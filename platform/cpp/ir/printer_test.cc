// The printer and the parser: a kernel built by hand prints as printer.py's
// format states (kernel arguments by name, every other value numbered in
// order of first appearance, attributes sorted, regions as "} {"), the text
// parses back to the same text, and malformed text gets parser.py's errors.
#include <memory>

#include "platform/cpp/ir/core.h"
#include "platform/cpp/ir/parser.h"
#include "platform/cpp/ir/printer.h"
#include "platform/cpp/testing/check.h"

using namespace rocke::ir;

namespace {

// Written from printer.py's docstring and SPELLING.md, not from the C++ output.
const char* const kText =
    "kernel @k(%n: i32, %out: ptr<global>) {arch = \"gfx942\", wave_size = 64, workgroup_size = [64, 1, 1]} {\n"
    "  %0 = arith.const() {value = 0x3FF0000000000000} : f32\n"
    "  %1 = arith.const() {value = 0} : i32\n"
    "  %2 = arith.const() {value = 1} : i32\n"
    "  %3 = scf.for(%1, %n, %2, %0) : f32 {\n"
    "  ^(%4: i32, %5: f32):\n"
    "    %6 = arith.add(%5, %0) : f32\n"
    "    scf.yield(%6)\n"
    "  }\n"
    "  %7 = arith.cmp(%n, %1) {pred = \"lt\"} : i1\n"
    "  scf.if(%7) {\n"
    "    mem.store(%out, %3)\n"
    "    scf.yield()\n"
    "  } {\n"
    "    scf.yield()\n"
    "  }\n"
    "}\n";

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
  CHECK_EQ(print_kernel(k), kText);
}

ROCKE_TEST(text_parses_back_to_the_same_text) {
  std::unique_ptr<Kernel> k = parse(kText);
  CHECK_EQ(print_kernel(*k), kText);
  CHECK_EQ(k->args.size(), 2u);
  CHECK_EQ(k->args[1]->name, "out");
  CHECK_EQ(k->body.ops.size(), 6u);
  CHECK_EQ(k->body.ops[3]->regions[0].args.size(), 2u);
  CHECK(k->body.ops[0]->attrs.at("value") == AttrValue(1.0));
  // Numbered values keep no name; comments and spacing do not matter.
  CHECK_EQ(k->body.ops[0]->results[0]->name, "");
  CHECK_EQ(print_kernel(*parse("// c\nkernel   @e( ) {\n}")), "kernel @e() {\n}\n");
}

ROCKE_TEST(malformed_text_gets_the_python_error) {
  // The messages parser.py gives for the same text.
  CHECK_THROWS(ParseError, parse("kernel @k(%0: i32) {}"), "line 1, column 11: expected an argument name that is not a number, got '%0'");
  CHECK_THROWS(ParseError, parse("kernel @k() {\n  %0 = arith.add(%1, %1) : i32\n}"),
               "line 2, column 18: expected a value defined before use (%1 is not), got '%1'");
  CHECK_THROWS(ParseError, parse("kernel @k(%a: i33) {}"),
               "line 1, column 15: expected a type (i1, i8, i16, i32, i64, f16, bf16, f32, f8e4m3, f8e5m2, vector<NxT>, ptr<SPACE>), got "
               "'i33'");
}

int main() { return rocke::testing::run_all(); }
