// The op table, mirroring platform/ir/ops.py: which ops exist (ops.json)
// and each op's check: the attribute-key rule, the fp8 rule, the schema of
// ops.json (op_schema.check) and the op's type rule. verifier.h's check_op
// applies it.
#pragma once

#include <string_view>

#include "platform/ir/cpp/core.h"
#include "platform/ir/cpp/ops.h"

namespace rocke::ir {

// Whether ops.json has an op called `name` (name in ops.OPS).
bool known_op(std::string_view name);

// check_op for an op whose schema the caller has already found
// (ops::find(op.name)): the verifier and the builder look it up once.
void check_known_op(const Op& op, const ops::Schema& schema);

}  // namespace rocke::ir
