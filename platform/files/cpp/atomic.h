// Atomic file writes, mirroring platform/files/atomic.py: a reader sees the
// old file or the whole new one, never a half-written one.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace rocke::files {

// A write that failed; names the path and the system's reason.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes `data` to a temporary file beside `path` (mode 0644), fsyncs it,
// renames it over `path` and fsyncs the folder. On failure the temporary is
// removed, `path` is untouched and OutputError is thrown.
void write_atomic(const std::string& path, std::string_view data);

}  // namespace rocke::files
