#include "platform/cpp/engine/engine.h"

#include <string>

#include "platform/cpp/ir/printer.h"
#include "platform/cpp/lower/lower.h"

namespace rocke::engine {

Emitted emit(const family::Family& fam, const family::Case& c, std::string_view flavor) {
  const auto kernel = fam.build(c);
  Emitted out;
  out.rk = ir::print_kernel(*kernel);
  out.ll = lower::lower(*kernel, flavor);
  return out;
}

family::Case read_case(const json::Value& entry) {
  auto fail = [&](const std::string& what) {
    throw family::FamilyError("case: expected " + what + ", got " + json::repr(entry));
  };
  if (!entry.is_object()) fail("a JSON object {\"arch\": ..., \"id\": ..., \"spec\": {...}}");
  const json::Object& o = entry.as_object();
  if (o.size() != 3 || !o.contains("arch") || !o.contains("id") || !o.contains("spec")) {
    fail("exactly the keys arch, id and spec");
  }
  if (!o.at("arch").is_str() || !o.at("id").is_str()) fail("arch and id to be strings");
  return family::Case{o.at("id").as_str(), o.at("arch").as_str(), o.at("spec")};
}

Emitted emit_case(std::string_view family, std::string_view case_json, std::string_view flavor) {
  const family::Family& fam = family::get(family);
  json::Value entry;
  try {
    entry = json::parse(case_json);
  } catch (const json::ParseError& e) {
    throw family::FamilyError(std::string("case: expected JSON text, got an error: ") + e.what());
  }
  return emit(fam, read_case(entry), flavor);
}

}  // namespace rocke::engine
