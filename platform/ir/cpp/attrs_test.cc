#include "platform/ir/cpp/attrs.h"

#include <cmath>
#include <limits>

#include "platform/cpp/testing/check.h"

using namespace rocke::ir;

// The right-hand sides are what CPython 3 prints for repr() of each value.
ROCKE_TEST(float_repr_is_pythons) {
  CHECK_EQ(float_repr(1.0), "1.0");
  CHECK_EQ(float_repr(0.1), "0.1");
  CHECK_EQ(float_repr(1e16), "1e+16");
  CHECK_EQ(float_repr(1e15), "1000000000000000.0");
  CHECK_EQ(float_repr(1.5e-05), "1.5e-05");
  CHECK_EQ(float_repr(0.0001), "0.0001");
  CHECK_EQ(float_repr(0.00012), "0.00012");
  CHECK_EQ(float_repr(-0.0), "-0.0");
  CHECK_EQ(float_repr(0.0), "0.0");
  CHECK_EQ(float_repr(123.456), "123.456");
  CHECK_EQ(float_repr(1.0 / 3), "0.3333333333333333");
  CHECK_EQ(float_repr(9007199254740992.0), "9007199254740992.0");
  CHECK_EQ(float_repr(12345678901234567.0), "1.2345678901234568e+16");
  CHECK_EQ(float_repr(1e22), "1e+22");
  CHECK_EQ(float_repr(5e-324), "5e-324");
  CHECK_EQ(float_repr(1.7976931348623157e308), "1.7976931348623157e+308");
  CHECK_EQ(float_repr(-2.5e-7), "-2.5e-07");
  CHECK_EQ(float_repr(std::numeric_limits<double>::infinity()), "inf");
  CHECK_EQ(float_repr(-std::numeric_limits<double>::infinity()), "-inf");
  CHECK_EQ(float_repr(std::nan("")), "nan");
}

ROCKE_TEST(attr_repr_is_pythons) {
  CHECK_EQ(repr(AttrValue(true)), "True");
  CHECK_EQ(repr(AttrValue(false)), "False");
  CHECK_EQ(repr(AttrValue(-7)), "-7");
  CHECK_EQ(repr(AttrValue(2.5)), "2.5");
  CHECK_EQ(repr(AttrValue("eq")), "'eq'");
  CHECK_EQ(repr(AttrValue(AttrList{})), "[]");
  // repr([1, [True, "it's"], 2.5, 'a'])
  CHECK_EQ(repr(AttrValue(AttrList{1, AttrList{true, "it's"}, 2.5, "a"})), "[1, [True, \"it's\"], 2.5, 'a']");
  CHECK_EQ(str_list_repr({}), "[]");
  CHECK_EQ(str_list_repr({"i32", "f32"}), "['i32', 'f32']");
}

int main() { return rocke::testing::run_all(); }
