#include "platform/lower/cpp/fp8_ir.h"

#include <cmath>

#include "platform/ir/cpp/types.h"
#include "platform/lower/cpp/flavors.h"
#include "platform/lower/cpp/spelling.h"

namespace rocke::lower {

namespace {

std::string f32(double value) { return float_literal(value, ir::scalar("f32")); }

}  // namespace

std::string fp8_decode(Emitter& e, const std::string& code, const Fp8& f) {
  std::string table = "@rocke." + std::string(f.name) + ".values";
  std::string entries;
  for (int c = 0; c < 256; ++c) entries += (c ? ", float " : "float ") + f32(decode_fp8(c, f));
  e.add_global(GlobalKind::kFp8Table, 0, std::string(f.name),
               table + " = internal addrspace(4) constant [256 x float] [" + entries + "], align 4");
  std::string index = e.inst("zext i8 " + code + " to i32");
  std::string p = e.inst("getelementptr inbounds [256 x float], ptr addrspace(4) " + table + ", i32 0, i32 " + index);
  return e.inst("load float, ptr addrspace(4) " + p + ", align 4");
}

std::string fp8_encode(Emitter& e, const std::string& x, const Fp8& f) {
  int shift = 23 - f.man_bits;
  std::string bits = e.inst("bitcast float " + x + " to i32");
  std::string sign = e.inst("lshr i32 " + bits + ", 24");
  sign = e.inst("and i32 " + sign + ", 128");
  std::string absbits = e.inst("and i32 " + bits + ", 2147483647");
  std::string a = e.inst("bitcast i32 " + absbits + " to float");
  a = e.call("float", intrinsic("minnum", "f32"), {"float " + a, "float " + f32(decode_fp8(f.max_code, f))});
  // Subnormal: round a / smallest-step to nearest even.
  std::string sub = e.inst("fmul float " + a + ", " + f32(std::ldexp(1.0, f.bias - 1 + f.man_bits)));
  sub = e.call("float", intrinsic("rint", "f32"), {"float " + sub});
  sub = e.inst("fptoui float " + sub + " to i32");
  // Normal: round the f32 mantissa to man_bits bits, rebias the exponent.
  std::string abits = e.inst("bitcast float " + a + " to i32");
  std::string odd = e.inst("lshr i32 " + abits + ", " + std::to_string(shift));
  odd = e.inst("and i32 " + odd + ", 1");
  std::string rounded = e.inst("add i32 " + abits + ", " + std::to_string((1 << (shift - 1)) - 1));
  rounded = e.inst("add i32 " + rounded + ", " + odd);
  rounded = e.inst("lshr i32 " + rounded + ", " + std::to_string(shift));
  std::string normal = e.inst("sub i32 " + rounded + ", " + std::to_string((127 - f.bias) << f.man_bits));
  normal = e.call("i32", intrinsic("umin", "i32"), {"i32 " + normal, "i32 " + std::to_string(f.max_code)});
  std::string tiny = e.inst("fcmp olt float " + a + ", " + f32(std::ldexp(1.0, 1 - f.bias)));
  std::string code = e.inst("select i1 " + tiny + ", i32 " + sub + ", i32 " + normal);
  code = e.inst("or i32 " + code + ", " + sign);
  std::string nan = e.inst("fcmp uno float " + x + ", " + f32(0.0));
  code = e.inst("select i1 " + nan + ", i32 " + std::to_string(f.nan_code) + ", i32 " + code);
  return e.inst("trunc i32 " + code + " to i8");
}

}  // namespace rocke::lower
