// A family registered twice, and one without a build, at static-
// initialisation time, as linking a family library twice would do: the
// program reaches main (a throw from a Registration would have ended it
// there, before any message), and get() and names() report both.
#include <memory>
#include <string>

#include "platform/cpp/testing/check.h"
#include "platform/family/cpp/family.h"

using rocke::family::Case;
using rocke::family::Family;
using rocke::family::FamilyError;
using rocke::family::Registration;
namespace json = rocke::json;

namespace {

Family toy(std::string name) {
  return Family{std::move(name), [](const Case&) { return std::unique_ptr<rocke::ir::Kernel>(); },
                [](const json::Value& spec) { return spec; }};
}

const Registration kFirst(toy("toy_twice"));
const Registration kSecond(toy("toy_twice"));
const Registration kNoBuild(Family{"toy_no_build", nullptr, [](const json::Value& spec) { return spec; }});

constexpr const char* kReport =
    "family \"toy_twice\": expected each family registered once, got a second registration; link its library only "
    "once; family registration: expected a name, build and spec_json, got name \"toy_no_build\" without build";

}  // namespace

ROCKE_TEST(main_is_reached_and_every_lookup_names_the_failed_registrations) {
  CHECK_THROWS(FamilyError, rocke::family::names(), kReport);
  CHECK_THROWS(FamilyError, rocke::family::get("toy_twice"), kReport);
}

int main() { return rocke::testing::run_all(); }
