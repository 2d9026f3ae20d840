// The parser: printed text parses back to the same text, and malformed text
// gets parser.py's errors (line, column and wording).
#include "platform/ir/cpp/parser.h"

#include <memory>

#include "platform/cpp/testing/check.h"
#include "platform/ir/cpp/printer.h"
#include "platform/ir/cpp/printer_test_text.h"

using namespace rocke::ir;
using rocke::ir::testing::kText;

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

ROCKE_TEST(malformed_text_names_line_column_and_token) {
  // parser.py raises the same facts (rk_parity_test); the wording is C++'s own.
  CHECK_THROWS(ParseError, parse("kernel @k(%0: i32) {}"),
               "line 1, column 11: expected an argument name that is not a number, got \"%0\"");
  CHECK_THROWS(ParseError, parse("kernel @k() {\n  %0 = arith.add(%1, %1) : i32\n}"),
               "line 2, column 18: expected a value defined before use (%1 is not), got \"%1\"");
  CHECK_THROWS(ParseError, parse("kernel @k(%a: i33) {}"),
               "line 1, column 15: expected a type (i1, i8, i16, i32, i64, f16, bf16, f32, f8e4m3, f8e5m2, "
               "vector<NxT>, ptr<SPACE>), got "
               "\"i33\"");
}

int main() { return rocke::testing::run_all(); }
