// SHA-256 (FIPS 180-4), for the manifest's per-case digest: the same hex
// digest as Python's hashlib.sha256(data).hexdigest().
#pragma once

#include <string>
#include <string_view>

namespace rocke::family {

// The 64 lower-case hex digits of SHA-256(data).
std::string sha256_hex(std::string_view data);

}  // namespace rocke::family
