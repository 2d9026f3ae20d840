#include "platform/ir/cpp/core.h"

#include <utility>

namespace rocke::ir {

Value* Op::result() const {
  if (results.size() != 1) {
    throw VerifyError(name, "exactly one result", std::to_string(results.size()));
  }
  return results[0];
}

Value* Kernel::new_value(const Type* type, std::string name) {
  values.push_back(std::make_unique<Value>(Value{type, std::move(name), values.size()}));
  return values.back().get();
}

namespace {

void walk_into(const Block& block, std::vector<const Op*>& out) {
  for (const auto& op : block.ops) {
    out.push_back(op.get());
    for (const Block& region : op->regions) walk_into(region, out);
  }
}

}  // namespace

std::vector<const Op*> walk(const Block& block) {
  std::vector<const Op*> out;
  walk_into(block, out);
  return out;
}

}  // namespace rocke::ir
