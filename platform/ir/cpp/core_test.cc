#include "platform/ir/cpp/core.h"

#include <memory>

#include "platform/cpp/testing/check.h"

using namespace rocke::ir;

namespace {

std::unique_ptr<Op> make_op(const char* name, std::vector<Value*> results) {
  auto op = std::make_unique<Op>();
  op->name = name;
  op->results = std::move(results);
  return op;
}

}  // namespace

ROCKE_TEST(new_value_is_owned_and_named) {
  Kernel k;
  Value* a = k.new_value(scalar("i32"), "n");
  Value* b = k.new_value(scalar("f32"));
  CHECK_EQ(k.values.size(), 2u);
  CHECK(a != b);
  CHECK_EQ(a->name, "n");
  CHECK_EQ(b->name, "");
  CHECK(a->type == scalar("i32"));
  CHECK(k.values[1].get() == b);
}

ROCKE_TEST(owns_only_its_own_values) {
  // Value::index is the value's place in `values`; owns() is what makes a
  // vector indexed by it safe for a value of another kernel.
  Kernel k, other;
  Value* a = k.new_value(scalar("i32"));
  Value* b = k.new_value(scalar("i32"));
  Value* stranger = other.new_value(scalar("i32"));  // index 0, as a's
  CHECK_EQ(a->index, 0u);
  CHECK_EQ(b->index, 1u);
  CHECK_EQ(stranger->index, 0u);
  CHECK(k.owns(a) && k.owns(b));
  CHECK(!k.owns(stranger));
  CHECK(!k.owns(nullptr));
  Value beyond{scalar("i32"), "", 7};
  CHECK(!k.owns(&beyond));
}

ROCKE_TEST(result_needs_exactly_one) {
  Kernel k;
  Value* v = k.new_value(scalar("i32"));
  CHECK(make_op("gpu.lane_id", {v})->result() == v);
  // core.py: f"{self.name}: expected exactly one result, got {len(self.results)}"
  CHECK_THROWS(VerifyError, make_op("gpu.barrier", {})->result(), "gpu.barrier: expected exactly one result, got 0");
  CHECK_THROWS(VerifyError, make_op("scf.if", {v, v})->result(), "scf.if: expected exactly one result, got 2");
}

ROCKE_TEST(walk_is_program_order) {
  // a { b { c } { d } } e  ->  a b c d e
  Block top;
  top.ops.push_back(make_op("a", {}));
  auto b = make_op("b", {});
  b->regions.resize(2);
  b->regions[0].ops.push_back(make_op("c", {}));
  b->regions[1].ops.push_back(make_op("d", {}));
  top.ops.push_back(std::move(b));
  top.ops.push_back(make_op("e", {}));
  std::string order;
  for (const Op* op : walk(top)) order += op->name;
  CHECK_EQ(order, "abcde");
  CHECK(walk(Block{}).empty());
}

int main() { return rocke::testing::run_all(); }
