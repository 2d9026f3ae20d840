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

// SPELLING.md's spellings, as the .rk text holds them.
ROCKE_TEST(attr_shown_spells_floats_for_people) {
  CHECK_EQ(attr_shown(AttrValue(2.5)), "2.5");
  CHECK_EQ(attr_shown(AttrValue(AttrList{1, AttrList{1e16, "x"}, true})), "[1, [1e+16, \"x\"], true]");
}

ROCKE_TEST(attr_text_is_the_rk_spelling) {
  CHECK_EQ(attr_text(AttrValue(true)), "true");
  CHECK_EQ(attr_text(AttrValue(-7)), "-7");
  CHECK_EQ(attr_text(AttrValue(2.5)), "0x4004000000000000");
  CHECK_EQ(attr_text(AttrValue("eq")), "\"eq\"");
  CHECK_EQ(attr_text(AttrValue(AttrList{})), "[]");
  CHECK_EQ(attr_text(AttrValue(AttrList{1, AttrList{true, "it's"}, "a"})), "[1, [true, \"it's\"], \"a\"]");
  CHECK(names_value({"i32", "f32"}) == (rocke::json::Array{"i32", "f32"}));
}

int main() { return rocke::testing::run_all(); }
