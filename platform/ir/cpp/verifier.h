// Kernel verification, mirroring platform/ir/verifier.py and the op rules of
// platform/ir/ops.py (with the schemas of ops.json): raises VerifyError, and
// only VerifyError, worded exactly as Python's.
#pragma once

#include "platform/ir/cpp/core.h"

namespace rocke::ir {

// The rule of one op (schema, then its type rule), as ops.OPS[name](op).
void check_op(const Op& op);

// The whole kernel, as verifier.verify(kernel).
void verify(const Kernel& kernel);

}  // namespace rocke::ir
