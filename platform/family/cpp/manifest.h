// The emitted manifest, mirroring platform/family/manifest.py's writing side
// byte for byte: one line per case, sorted by id, under a header naming the
// bless command. (Reading goldens stays in Python: golden_check.py.)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rocke::family::manifest {

struct Entry {
  std::string id;
  std::string arch;
  std::string kernel;
  std::size_t nbytes = 0;
  std::string sha256;
  std::string error;  // set for expected rejections: the error's Python class name
  bool kept = false;  // a representative: its IR is kept as <case id>.ll

  // Entry.line(): "case ID arch=A kernel=K bytes=N sha256=HEX[ ir=kept]" or
  // "reject ID arch=A error=CLASS".
  std::string line() const;
};

// manifest.entry_for: an emitted case, covered by the size and sha256 of its IR.
Entry entry_for(std::string id, std::string arch, std::string kernel, std::string_view ir, bool kept);

// manifest.bless_command: the one spelling of the command that rewrites a golden.
std::string bless_command(std::string_view target);

// manifest.header: the two comment lines above the entries.
std::vector<std::string> header(std::string_view family, std::string_view flavor, std::string_view bless_target);

// manifest.render: the header and the entries' lines sorted by id, each ending in "\n".
std::string render(std::vector<Entry> entries, const std::vector<std::string>& head);

}  // namespace rocke::family::manifest
