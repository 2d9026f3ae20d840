// The op table, mirroring platform/ir/ops.py: which ops exist (ops.json)
// and each op's check: the attribute-key rule, the fp8 rule, the schema of
// ops.json (op_schema.check) and the op's type rule. verifier.h's check_op
// applies it.
#pragma once

#include <string_view>

namespace rocke::ir {

// Whether ops.json has an op called `name` (name in ops.OPS).
bool known_op(std::string_view name);

}  // namespace rocke::ir
