// Lowering a verified kernel to LLVM IR text for one flavor, mirroring
// platform/lower/llvm.py byte for byte.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/core.h"

namespace rocke::lower {

// The kernel's arch or flavor cannot express it: Python's ArchDomainError,
// with its field, value and allowed values (errors::FieldError).
class ArchDomainError : public errors::FieldError {
 public:
  ArchDomainError(std::string field, json::Value value, json::Value allowed, const std::string& message)
      : errors::FieldError("lower.flavors.ArchDomainError", std::move(field), std::move(value), std::move(allowed),
                           message) {}
};

// LLVM IR text of `kernel` for `flavor` (llvm20, llvm22, llvm23, llvm24).
// Verifies the kernel first (ir::VerifyError).
std::string lower(const ir::Kernel& kernel, std::string_view flavor);

// The same for a kernel that ir::verify has passed and that has not changed
// since, such as the one KernelBuilder::finish returns (a family's build, in
// engine::emit): the same text, without verifying the kernel a second time
// (verification was a third of the C++ engine's time per kernel).
std::string lower_verified(const ir::Kernel& kernel, std::string_view flavor);

}  // namespace rocke::lower
