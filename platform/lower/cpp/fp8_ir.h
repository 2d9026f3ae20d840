// fp8 conversions as LLVM IR (platform/lower/fp8_ir.py): a table load to
// decode, floats.h's encode_fp8 step by step to encode. Internal to :lower.
#pragma once

#include <string>

#include "platform/lower/cpp/emitter.h"
#include "platform/lower/cpp/floats.h"

namespace rocke::lower {

// The f32 value of the i8 code `code`.
std::string fp8_decode(Emitter& e, const std::string& code, const Fp8& format);
// The i8 code of the f32 value `x`.
std::string fp8_encode(Emitter& e, const std::string& x, const Fp8& format);

}  // namespace rocke::lower
