// The spellings and sizes of platform/ir/types.py (its docstrings and the
// README's type list), not read from the generated header;
// types_parity_test compares every type with Python.
#include "platform/ir/cpp/types.h"

#include <string>

#include "platform/cpp/testing/check.h"

using namespace rocke::ir;

ROCKE_TEST(scalars_in_order) {
  std::string names;
  for (const Type* t : scalars()) names += t->str() + " ";
  CHECK_EQ(names, std::string("i1 i8 i16 i32 i64 f16 bf16 f32 f8e4m3 f8e5m2 "));
  CHECK_EQ(scalar("i1")->nbytes(), 1);
  CHECK_EQ(scalar("bf16")->bits(), 16);
  CHECK(scalar("i64")->is_int());
  CHECK(scalar("f8e4m3")->is_float());
  CHECK_EQ(max_lanes(), 64);
}

ROCKE_TEST(interned) {
  const Type* f16 = scalar("f16");
  CHECK(f16 == scalar("f16"));
  CHECK(vector(f16, 4) == vector(scalar("f16"), 4));
  CHECK(vector(f16, 4) != vector(f16, 8));
  CHECK(ptr("lds") == ptr("lds"));
}

ROCKE_TEST(vectors_and_pointers) {
  const Type* v = vector(scalar("f16"), 4);
  CHECK_EQ(v->str(), std::string("vector<4xf16>"));
  CHECK_EQ(v->nbytes(), 8);
  CHECK_EQ(v->lanes(), 4);
  CHECK(v->element() == scalar("f16"));
  CHECK(v->is_float());
  CHECK_EQ(vector(scalar("i1"), 64)->str(), std::string("vector<64xi1>"));
  CHECK_EQ(ptr("global")->str(), std::string("ptr<global>"));
  CHECK_EQ(ptr("global")->addrspace(), 1);
  CHECK_EQ(ptr("lds")->addrspace(), 3);
  CHECK_EQ(ptr("buffer")->addrspace(), 8);
  CHECK(!ptr("private")->is_int() && !ptr("private")->is_float());
}

ROCKE_TEST(bad_parts_are_named) {
  const Type* f32 = scalar("f32");
  CHECK_THROWS(BadTypeError, vector(f32, 65), "vector: expected a length in 2..64, got 65");
  CHECK_THROWS(BadTypeError, vector(f32, 1), "vector: expected a length in 2..64, got 1");
  CHECK_THROWS(BadTypeError, vector(vector(f32, 2), 2), "vector: expected a scalar element type, got vector<2xf32>");
  CHECK_THROWS(
      BadTypeError, ptr("shared"),
      "ptr: expected an address space in [\"buffer\",\"constant\",\"global\",\"lds\",\"private\"], got \"shared\"");
  CHECK_THROWS(BadTypeError, scalar("f64"),
               "scalar: expected one of i1, i8, i16, i32, i64, f16, bf16, f32, f8e4m3, f8e5m2, got \"f64\"");
}

int main() { return rocke::testing::run_all(); }
