// The .rk text of a kernel, mirroring platform/ir/printer.py byte for byte
// (platform/ir/SPELLING.md states every spelling).
#pragma once

#include <string>

#include "platform/ir/cpp/core.h"

namespace rocke::ir {

std::string print_kernel(const Kernel& kernel);

}  // namespace rocke::ir
