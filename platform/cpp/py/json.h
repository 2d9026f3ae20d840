// JSON text for the C++ side's dump programs (the Python cross-checks read it).
#pragma once

#include <string>
#include <string_view>

namespace rocke::py {

// A JSON string literal: ", \\ and control bytes escaped; other bytes as is.
std::string json_string(std::string_view s);

}  // namespace rocke::py
