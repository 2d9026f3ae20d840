// LLVM spellings (platform/ir/SPELLING.md, "LLVM IR"): types, intrinsic
// suffixes and constants.
#include "platform/lower/cpp/spelling.h"

#include <cmath>

#include "platform/cpp/testing/check.h"
#include "platform/ir/cpp/types.h"

using namespace rocke::lower;
using rocke::ir::AttrValue;
using rocke::ir::ptr;
using rocke::ir::scalar;
using rocke::ir::vector;

ROCKE_TEST(types) {
  CHECK_EQ(ltype(scalar("i1")), "i1");
  CHECK_EQ(ltype(scalar("f16")), "half");
  CHECK_EQ(ltype(scalar("bf16")), "bfloat");
  CHECK_EQ(ltype(scalar("f32")), "float");
  CHECK_EQ(ltype(scalar("f8e5m2")), "i8");  // fp8 is storage-only
  CHECK_EQ(ltype(vector(scalar("f16"), 4)), "<4 x half>");
  CHECK_EQ(ltype(vector(scalar("f8e4m3"), 8)), "<8 x i8>");
  CHECK_EQ(ltype(ptr("global")), "ptr addrspace(1)");
  CHECK_EQ(ltype(ptr("lds")), "ptr addrspace(3)");
  CHECK_EQ(ltype(ptr("buffer")), "ptr addrspace(8)");
}

ROCKE_TEST(suffixes) {
  CHECK_EQ(suffix(scalar("f32")), "f32");
  CHECK_EQ(suffix(scalar("bf16")), "bf16");
  CHECK_EQ(suffix(scalar("i32")), "i32");
  CHECK_EQ(suffix(vector(scalar("f16"), 4)), "v4f16");
  CHECK_EQ(suffix(vector(scalar("i64"), 2)), "v2i64");
}

ROCKE_TEST(constants) {
  CHECK_EQ(literal(AttrValue(1), scalar("i1")), "true");
  CHECK_EQ(literal(AttrValue(0), scalar("i1")), "false");
  CHECK_EQ(literal(AttrValue(-1), scalar("i32")), "-1");
  CHECK_EQ(literal(AttrValue(std::int64_t{-9223372036854775807 - 1}), scalar("i64")), "-9223372036854775808");
  // f32: the bits of the f32-rounded value as a double (0.1f is 0x3DCCCCCD,
  // widened 0x3FB99999A0000000).
  CHECK_EQ(literal(AttrValue(0.1), scalar("f32")), "0x3FB99999A0000000");
  CHECK_EQ(literal(AttrValue(1.0), scalar("f32")), "0x3FF0000000000000");
  CHECK_EQ(literal(AttrValue(1e300), scalar("f32")), "0x7FF0000000000000");
  CHECK_EQ(literal(AttrValue(std::nan("")), scalar("f32")), "0x7FF8000000000000");
  CHECK_EQ(literal(AttrValue(1.0), scalar("f16")), "0xH3C00");
  CHECK_EQ(literal(AttrValue(-2.0), scalar("f16")), "0xHC000");
  CHECK_EQ(literal(AttrValue(1.0), scalar("bf16")), "0xR3F80");
  CHECK_EQ(literal(AttrValue(std::nan("")), scalar("bf16")), "0xR7FC0");
}

int main() { return rocke::testing::run_all(); }
