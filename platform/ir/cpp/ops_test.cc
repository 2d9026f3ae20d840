// Facts the IR's design states (an scf.for takes lower bound, upper bound and
// step before its carried values; fp8 is storage-only), not read from the
// generated header; ops_parity_test compares every field with Python.
#include "platform/ir/cpp/ops.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "platform/cpp/testing/check.h"

using rocke::ops::schema;
using rocke::ops::UnknownOpError;

ROCKE_TEST(scf_ops_are_variadic_with_regions) {
  const auto& f = schema("scf.for");
  CHECK_EQ(f.operands.n, 3);
  CHECK(f.operands.is_min);
  CHECK_EQ(f.results.n, 0);
  CHECK(f.results.is_min);
  CHECK_EQ(f.regions, 1);
  const auto& i = schema("scf.if");
  CHECK_EQ(i.operands.n, 1);
  CHECK(!i.operands.is_min);
  CHECK_EQ(i.regions, 2);
}

ROCKE_TEST(binary_arith_is_exact_and_not_fp8) {
  const auto& a = schema("arith.add");
  CHECK_EQ(a.operands.n, 2);
  CHECK(!a.operands.is_min);
  CHECK_EQ(a.results.n, 1);
  CHECK(!a.results.is_min);
  CHECK_EQ(a.regions, 0);
  CHECK(!a.fp8);
  CHECK(a.attrs.empty());
  CHECK(schema("arith.convert").fp8);
}

ROCKE_TEST(cmp_predicates_come_from_their_table) {
  const auto& c = schema("arith.cmp");
  CHECK_EQ(c.attrs.size(), 1u);
  const auto& pred = c.attrs[0];
  CHECK_EQ(pred.name, std::string_view("pred"));
  CHECK_EQ(pred.kind, std::string_view("str"));
  CHECK(pred.has_values);
  CHECK_EQ(pred.table, std::string_view("cmp_predicates"));
  CHECK(pred.ints.empty());
  CHECK(std::find(pred.strs.begin(), pred.strs.end(), "eq") != pred.strs.end());
  CHECK(std::find(pred.strs.begin(), pred.strs.end(), "ge") != pred.strs.end());
}

ROCKE_TEST(lds_alloc_inline_values_and_min) {
  const auto& l = schema("mem.lds_alloc");
  CHECK_EQ(l.attrs.size(), 2u);
  const auto& align = l.attrs[0];  // by name: align, bytes
  CHECK_EQ(align.name, std::string_view("align"));
  CHECK(align.has_values);
  CHECK(align.table.empty());
  CHECK_EQ(align.ints.size(), 3u);
  CHECK_EQ(align.ints[2], 16);
  CHECK(!align.min.has_value());
  const auto& bytes = l.attrs[1];
  CHECK_EQ(bytes.name, std::string_view("bytes"));
  CHECK_EQ(bytes.kind, std::string_view("int"));
  CHECK(!bytes.has_values);
  CHECK(bytes.min.has_value() && *bytes.min == 1);
}

ROCKE_TEST(sorted_by_name) {
  const auto& all = rocke::ops::all();
  CHECK(all.size() > 40u);
  CHECK(std::is_sorted(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.name < b.name; }));
}

ROCKE_TEST(unknown_op_is_named) {
  CHECK_THROWS(UnknownOpError, schema("arith.fadd"), "op: expected a known op, got \"arith.fadd\"");
  CHECK_THROWS(UnknownOpError, schema(""), "op: expected a known op, got \"\"");
}

int main() { return rocke::testing::run_all(); }
