// The registry, the case-list reader and representatives; the expected ids
// are those of platform/family/family_test.py, which checks the Python rule.
#include "platform/family/cpp/family.h"

#include <algorithm>
#include <string>
#include <vector>

#include "platform/cpp/testing/check.h"

using rocke::family::Case;
using rocke::family::Family;
using rocke::family::FamilyError;
using rocke::family::read_cases;
using rocke::family::Registration;
using rocke::family::representatives;
namespace json = rocke::json;

namespace {

Family toy(std::string name) {
  return Family{std::move(name), [](const Case&) { return std::unique_ptr<rocke::ir::Kernel>(); },
                [](const json::Value& spec) { return spec; }};
}

const Registration kBeta(toy("toy_beta"));
const Registration kAlpha(toy("toy_alpha"));

// family_test.cases: every problem on every arch, ids NAME_ARCH.
std::vector<Case> cases(const std::vector<std::pair<std::string, json::Value>>& problems,
                        const std::vector<std::string>& archs) {
  std::vector<Case> out;
  for (const auto& [name, spec] : problems) {
    for (const std::string& arch : archs) out.push_back(Case{name + "_" + arch, arch, spec});
  }
  return out;
}

std::vector<std::string> kept(const std::vector<Case>& emitted) {
  std::vector<const Case*> ptrs;
  for (const Case& c : emitted) ptrs.push_back(&c);
  return representatives(ptrs);
}

const json::Value kSpecA = json::Array{"a", 1};
const json::Value kSpecB = json::Array{"b", 2};

using Ids = std::vector<std::string>;

std::string str(const Ids& ids) {
  std::string out;
  for (const std::string& id : ids) out += id + " ";
  return out;
}

}  // namespace

ROCKE_TEST(registry_names_sorted_and_get_by_name) {
  CHECK_EQ(str(rocke::family::names()), std::string("toy_alpha toy_beta "));
  CHECK_EQ(rocke::family::get("toy_beta").name, std::string("toy_beta"));
}

ROCKE_TEST(an_unknown_family_names_the_registered_ones) {
  CHECK_THROWS(
      FamilyError, rocke::family::get("toy_alpah"),
      "family \"toy_alpah\": expected one of the registered families toy_alpha, toy_beta; did you mean toy_alpha?");
  CHECK_THROWS(FamilyError, rocke::family::get("conv"),
               "family \"conv\": expected one of the registered families toy_alpha, toy_beta");
  try {
    rocke::family::get("conv");
  } catch (const FamilyError& e) {
    CHECK_EQ(json::canonical(e.facts()), std::string(R"(["FamilyError","family","conv",["toy_alpha","toy_beta"]])"));
  }
}

ROCKE_TEST(read_cases_gives_the_cases_in_order) {
  const auto got = read_cases(
      "{\"cases\":[{\"arch\":\"gfx942\",\"id\":\"b\",\"spec\":{\"n\":[2,3]}},{\"arch\":\"gfx950\",\"id\":\"a\","
      "\"spec\":1}],"
      "\"family\":\"toy_alpha\",\"format\":1}\n",
      "toy_alpha");
  CHECK_EQ(got.size(), std::size_t{2});
  CHECK_EQ(got[0].id + got[0].arch + json::canonical(got[0].spec), std::string("bgfx942{\"n\":[2,3]}"));
  CHECK_EQ(got[1].id + got[1].arch + json::canonical(got[1].spec), std::string("agfx9501"));
}

ROCKE_TEST(read_cases_names_what_is_wrong) {
  const std::string fix = "; rebuild it with the family's NAME_cases target (emit.py --cases-json)";
  CHECK_THROWS(FamilyError, read_cases("{\"cases\":[],\"family\":\"toy_beta\",\"format\":1}", "toy_alpha"),
               "case list of toy_alpha: family: expected \"toy_alpha\", got \"toy_beta\"; pass the family's own "
               "NAME.cases.json");
  CHECK_THROWS(FamilyError, read_cases("{\"cases\":[],\"family\":\"toy_alpha\",\"format\":1}", "toy_alpha"),
               "case list of toy_alpha: cases: expected a non-empty list of cases, got []" + fix);
  CHECK_THROWS(FamilyError, read_cases("{\"cases\":[1],\"family\":\"toy_alpha\",\"format\":2}", "toy_alpha"),
               "case list of toy_alpha: format: expected 1, got 2" + fix);
  CHECK_THROWS(FamilyError, read_cases("{\"cases\":[1.5]}", "toy_alpha"),
               "case list of toy_alpha: expected JSON text, got JSON byte 10: expected an integer (a spec holds no "
               "floats), got a "
               "float" +
                   fix);
  CHECK_THROWS(
      FamilyError, read_cases("[]", "toy_alpha"),
      "case list of toy_alpha: expected {\"cases\":[{\"arch\":ARCH,\"id\":ID,\"spec\":SPEC},...],\"family\":NAME,"
      "\"format\":1}, got an object with other keys or no object" +
          fix);
  CHECK_THROWS(
      FamilyError,
      read_cases("{\"cases\":[{\"arch\":\"gfx942\",\"id\":\"x\"}],\"family\":\"toy_alpha\",\"format\":1}", "toy_alpha"),
      "case list of toy_alpha: cases[0]: expected an object with exactly the keys arch, id and spec, got "
      "{\"arch\":\"gfx942\",\"id\":\"x\"}");
  CHECK_THROWS(FamilyError,
               read_cases("{\"cases\":[{\"arch\":7,\"id\":\"x\",\"spec\":1}],\"family\":\"toy_alpha\",\"format\":1}",
                          "toy_alpha"),
               "case list of toy_alpha: cases[0].arch: expected a non-empty string, got 7");
  CHECK_THROWS(
      FamilyError,
      read_cases(
          "{\"cases\":[{\"arch\":\"gfx942\",\"id\":\"x\",\"spec\":1},{\"arch\":\"gfx950\",\"id\":\"x\",\"spec\":1}],"
          "\"family\":\"toy_alpha\",\"format\":1}",
          "toy_alpha"),
      "case list of toy_alpha: cases[1].id: expected unique case ids, got \"x\" again" + fix);
}

ROCKE_TEST(one_representative_per_arch_family_for_a_problem_on_every_arch) {
  CHECK_EQ(str(kept(cases({{"p", kSpecA}, {"q", kSpecB}}, {"gfx942", "gfx950", "gfx1201", "gfx1250"}))),
           str({"p_gfx942", "p_gfx1201", "p_gfx1250"}));
}

ROCKE_TEST(the_same_problem_on_two_archs_of_one_family_is_kept_once) {
  CHECK_EQ(str(kept(cases({{"p", kSpecA}}, {"gfx950", "gfx942", "gfx90a"}))), str({"p_gfx950"}));
}

ROCKE_TEST(an_arch_with_problems_of_its_own_keeps_them) {
  auto all = cases({{"m", kSpecA}}, {"gfx942", "gfx950"});
  for (Case& c : cases({{"w", kSpecB}}, {"gfx1201"})) all.push_back(c);
  CHECK_EQ(str(kept(all)), str({"m_gfx942", "w_gfx1201"}));
}

ROCKE_TEST(representatives_follow_the_family_order_not_the_id_order) {
  auto emitted = cases({{"p", kSpecA}}, {"gfx950", "gfx942"});
  CHECK_EQ(str(kept(emitted)), str({"p_gfx950"}));
  std::reverse(emitted.begin(), emitted.end());
  CHECK_EQ(str(kept(emitted)), str({"p_gfx942"}));
}

ROCKE_TEST(specs_compare_as_json_values) {
  // The same problem as different JSON is another kind; equal JSON is one.
  const auto specs = std::vector<Case>{{"x_gfx942", "gfx942", json::Object{{"n", 1}}},
                                       {"y_gfx950", "gfx950", json::Object{{"n", 2}}},
                                       {"z_gfx90a", "gfx90a", json::Object{{"n", 1}}}};
  CHECK_EQ(str(kept(specs)), str({"x_gfx942", "y_gfx950"}));
}

int main() { return rocke::testing::run_all(); }
