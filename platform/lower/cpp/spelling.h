// How IR types and constants are spelled in LLVM IR, mirroring
// platform/lower/spelling.py (platform/ir/SPELLING.md): integers decimal in
// the signed range, float constants LLVM's hex forms of their bits (f32 as
// the 16 hex digits of the equal double, f16 0xH and 4 digits, bf16 0xR and
// 4 digits).
#pragma once

#include <string>

#include "platform/ir/cpp/core.h"

namespace rocke::lower {

// i32, half, <4 x float>, ptr addrspace(1); fp8 is i8.
const std::string& ltype(const ir::Type* t);
// The intrinsic name suffix of a type: f32, v4f16, i32.
std::string suffix(const ir::Type* t);
// The LLVM spelling of a constant of scalar type t (an arith.const's value:
// an int for int types, a float for float types).
std::string literal(const ir::AttrValue& value, const ir::Type* t);
// The same for a float value, as fp8_ir's constants need.
std::string float_literal(double value, const ir::Type* t);

}  // namespace rocke::lower
