#include "platform/family/cpp/family.h"

#include <map>
#include <set>
#include <utility>

#include "platform/arch/cpp/arch.h"
#include "platform/errors/cpp/errors.h"

namespace rocke::family {
namespace {

// Filled during static initialisation by each family's Registration; a
// function-local static, so it exists before the first of them runs.
struct Registry {
  std::map<std::string, Family, std::less<>> families;
  // What went wrong registering (a family registered twice): a throw during
  // static initialisation would end the program before main, so each is
  // kept here, with the family's name, and get() and names() report them.
  std::vector<std::string> errors;
  json::Array failed;
};

Registry& registry() {
  static Registry r;
  return r;
}

// FamilyError naming every failed registration, if there was one.
void check_registrations() {
  std::string all;
  for (const std::string& e : registry().errors) all += (all.empty() ? "" : "; ") + e;
  if (!all.empty()) throw FamilyError("family registration", registry().failed, nullptr, all);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// What a case list must hold, for the errors.
constexpr const char* kListForm =
    "{\"cases\":[{\"arch\":ARCH,\"id\":ID,\"spec\":SPEC},...],\"family\":NAME,\"format\":1}";
constexpr std::int64_t kFormat = 1;  // cases_json.FORMAT

// The keys of `o` are exactly `keys` (sorted, as an Object's are).
bool has_exactly(const json::Object& o, const std::vector<std::string_view>& keys) {
  if (o.size() != keys.size()) return false;
  auto k = keys.begin();
  for (const auto& entry : o) {
    if (entry.first != *k++) return false;
  }
  return true;
}

}  // namespace

Registration::Registration(const Family& family) {
  if (family.name.empty() || !family.build || !family.spec_json) {
    registry().errors.push_back("family registration: expected a name, build and spec_json, got name " +
                                json::quote(family.name) + (family.build ? "" : " without build") +
                                (family.spec_json ? "" : " without spec_json"));
    registry().failed.emplace_back(family.name);
    return;
  }
  const std::string name = family.name;
  if (!registry().families.try_emplace(name, family).second) {
    registry().errors.push_back("family " + json::quote(name) +
                                ": expected each family registered once, got a second registration; link its library "
                                "only once");
    registry().failed.emplace_back(name);
  }
}

const Family& get(std::string_view name) {
  check_registrations();
  const auto it = registry().families.find(name);
  if (it != registry().families.end()) return it->second;
  const std::vector<std::string> known = names();
  if (known.empty()) {
    throw FamilyError(
        "family", std::string(name), json::Array{},
        "family " + json::quote(name) +
            ": no family is registered; link a family library (alwayslink), e.g. //library:rocke_library");
  }
  std::vector<std::string_view> views(known.begin(), known.end());
  const std::string_view close = errors::closest(name, views);
  throw FamilyError("family", std::string(name), json::Array(known.begin(), known.end()),
                    "family " + json::quote(name) + ": expected one of the registered families " + joined(known) +
                        (close.empty() ? "" : "; did you mean " + std::string(close) + "?"));
}

std::vector<std::string> names() {
  check_registrations();
  std::vector<std::string> out;
  for (const auto& entry : registry().families) out.push_back(entry.first);
  return out;
}

Case read_case(const json::Value& entry, std::string_view where) {
  const std::string at(where);
  if (!entry.is_object() || !has_exactly(entry.as_object(), {"arch", "id", "spec"})) {
    throw FamilyError(
        at, entry, json::Array{"arch", "id", "spec"},
        at + ": expected an object with exactly the keys arch, id and spec, got " + json::canonical(entry));
  }
  const json::Object& o = entry.as_object();
  for (const char* key : {"arch", "id"}) {
    if (!o.at(key).is_str() || o.at(key).as_str().empty()) {
      const std::string field = at + "." + key;
      throw FamilyError(field, o.at(key), nullptr, errors::worded(field, "a non-empty string", o.at(key)));
    }
  }
  return Case{o.at("id").as_str(), o.at("arch").as_str(), o.at("spec")};
}

namespace {

// read_cases: with `fam`, each case's spec is read by its spec_json as the
// case is read, as cases_json.read reads it with its class's from_json.
std::vector<Case> read_list(std::string_view text, std::string_view family, const Family* fam) {
  const std::string where = "case list of " + std::string(family);
  const std::string fix = "rebuild it with the family's NAME_cases target (emit.py --cases-json)";
  json::Value doc;
  try {
    doc = json::parse(text);
  } catch (const json::ParseError& e) {
    throw FamilyError(where, std::string(text), nullptr, where + ": expected JSON text, got " + e.what() + "; " + fix);
  }
  if (!doc.is_object() || !has_exactly(doc.as_object(), {"cases", "family", "format"})) {
    json::Value got = doc;
    if (doc.is_object()) {
      json::Array keys;
      for (const auto& entry : doc.as_object()) keys.emplace_back(entry.first);
      got = std::move(keys);
    }
    throw FamilyError(where, std::move(got), json::Array{"cases", "family", "format"},
                      where + ": expected " + kListForm + ", got an object with other keys or no object; " + fix);
  }
  const json::Object& o = doc.as_object();
  if (o.at("format") != json::Value(kFormat)) {
    const std::string field = where + ": format";
    throw FamilyError(field, o.at("format"), json::Array{kFormat},
                      errors::worded(field, std::to_string(kFormat), o.at("format"), fix));
  }
  if (!o.at("family").is_str() || o.at("family").as_str() != family) {
    const std::string field = where + ": family";
    throw FamilyError(
        field, o.at("family"), json::Array{std::string(family)},
        errors::worded(field, json::quote(family), o.at("family"), "pass the family's own NAME.cases.json"));
  }
  if (!o.at("cases").is_array() || o.at("cases").as_array().empty()) {
    const std::string field = where + ": cases";
    throw FamilyError(field, o.at("cases"), nullptr,
                      errors::worded(field, "a non-empty list of cases", o.at("cases"), fix));
  }
  std::vector<Case> cases;
  std::set<std::string, std::less<>> ids;
  for (const json::Value& entry : o.at("cases").as_array()) {
    const std::string at = where + ": cases[" + std::to_string(cases.size()) + "]";
    Case c = read_case(entry, at);
    if (fam != nullptr) {
      try {
        c.spec = fam->spec_json(c.spec);
      } catch (const SpecError& e) {  // the spec's own error, named with its place in the list and its case
        const std::string field = at + ".spec";
        throw FamilyError(field, c.spec, nullptr, field + " (case " + c.id + "): " + e.class_name() + ": " + e.what());
      }
    }
    if (!ids.insert(c.id).second) {
      const std::string field = at + ".id";
      throw FamilyError(field, c.id, nullptr,
                        field + ": expected unique case ids, got " + json::quote(c.id) + " again; " + fix);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace

std::vector<Case> read_cases(std::string_view text, std::string_view family) {
  return read_list(text, family, nullptr);
}

std::vector<Case> read_cases(std::string_view text, const Family& fam) { return read_list(text, fam.name, &fam); }

// family.representatives: each arch's first case is a candidate; of the
// candidates with an equal spec on archs of one generation only the first
// is kept (family.py says why).
std::vector<std::string> representatives(const std::vector<const Case*>& emitted) {
  std::vector<const Case*> first_of_arch;
  std::set<std::string_view> seen;
  for (const Case* c : emitted) {
    if (seen.insert(c->arch).second) first_of_arch.push_back(c);
  }
  std::vector<std::pair<const json::Value*, std::string_view>> kinds;
  std::vector<std::string> kept;
  for (const Case* c : first_of_arch) {
    const std::string_view generation = arch::get(c->arch).generation;
    bool repeat = false;
    for (const auto& [spec, gen] : kinds) repeat = repeat || (*spec == c->spec && gen == generation);
    if (repeat) continue;
    kinds.emplace_back(&c->spec, generation);
    kept.push_back(c->id);
  }
  return kept;
}

}  // namespace rocke::family
