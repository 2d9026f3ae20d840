// Lowering a verified kernel to LLVM IR text for one flavor, mirroring
// platform/lower/llvm.py byte for byte.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "platform/ir/cpp/core.h"

namespace rocke::lower {

// The kernel's arch or flavor cannot express it (Python's ArchDomainError),
// worded as Python's.
class ArchDomainError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
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
