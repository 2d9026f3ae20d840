#include "platform/cpp/engine/engine.h"

#include <string>

#include "platform/ir/cpp/printer.h"
#include "platform/lower/cpp/lower.h"

namespace rocke::engine {

Emitted emit(const family::Family& fam, const family::Case& c, std::string_view flavor) {
  // A family builds through KernelBuilder::finish, which verifies the
  // kernel: lower it without verifying it again.
  const auto kernel = fam.build(c);
  Emitted out;
  out.rk = ir::print_kernel(*kernel);
  out.ll = lower::lower_verified(*kernel, flavor);
  out.name = kernel->name;
  return out;
}

Emitted emit_case(std::string_view family, std::string_view case_json, std::string_view flavor) {
  const family::Family& fam = family::get(family);
  json::Value entry;
  try {
    entry = json::parse(case_json);
  } catch (const json::ParseError& e) {
    throw family::FamilyError("case", std::string(case_json), nullptr,
                              std::string("case: expected JSON text, got an error: ") + e.what());
  }
  return emit(fam, family::read_case(entry, "case"), flavor);
}

}  // namespace rocke::engine
