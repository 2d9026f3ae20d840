// PoolSpec in C++ against what Python's library/pool/spec.py gives: the
// expected values and refusals' facts (class, field, value, allowed) below
// are Python's PoolSpec.from_json's for the same JSON (spec_parity_test
// checks many more against Python itself); the messages are this engine's.
#include "library/pool/cpp/spec.h"

#include <string>

#include "platform/cpp/json/json.h"
#include "platform/cpp/testing/check.h"
#include "platform/family/cpp/family.h"

namespace rocke::pool {
namespace {

const std::string kBase = R"("n":1,"c":64,"spatial":[12,12],"kind":"max","window":[3,3])";

// The base spec with the fields of `extra` added or replacing the base's.
PoolSpec spec(const std::string& extra) {
  json::Object fields = json::parse("{" + kBase + "}").as_object();
  json::Value added = json::parse("{" + extra + "}");
  for (const auto& [key, value] : added.as_object()) fields[key] = value;
  return PoolSpec::from_json(fields);
}

// The canonical JSON of the facts of the SpecError `make` throws, or "none".
template <class F>
std::string facts(F make) {
  try {
    make();
  } catch (const family::SpecError& e) {
    return json::canonical(e.facts());
  }
  return "none";
}

#define CHECK_SPEC_FACTS(extra, expected) CHECK_EQ(facts([&] { (void)spec(extra); }), std::string(expected))

ROCKE_TEST(defaults_are_filled_and_to_json_has_every_field) {
  CHECK_EQ(json::canonical(spec(R"("pad":[1,2])").to_json()),
           std::string(R"({"c":64,"count_pad":false,"dtype":"f16","kind":"max","layout":"NHWC","n":1,"pad":[1,2],)"
                       R"("pad_end":[1,2],"spatial":[12,12],"stride":[3,3],"window":[3,3]})"));
}

ROCKE_TEST(output_sizes_floor_as_python) {
  // (12 + 1 + 0 - 3) // 2 + 1 = 6 and (12 + 0 + 2 - 3) // 2 + 1 = 6; 3-D with one-sided padding.
  CHECK(spec(R"("stride":[2,2],"pad":[1,0],"pad_end":[0,2])").output() == (Shape{6, 6}));
  PoolSpec s = spec(R"("spatial":[4,5,6],"window":[2,2,2],"pad":[0,1,0],"pad_end":[1,0,0],"layout":"NCHW")");
  CHECK(s.output() == (Shape{2, 3, 3}));
}

ROCKE_TEST(refusals_carry_pythons_facts) {
  CHECK_SPEC_FACTS(R"("kind":"sum")", R"(["SpecError","PoolSpec.kind","sum",["max","avg"]])");
  CHECK_SPEC_FACTS(R"("count_pad":true)", R"(["SpecError","PoolSpec.count_pad",true,null])");
  CHECK_SPEC_FACTS(R"("pad":[3,0])", R"(["SpecError","PoolSpec.pad",[3,0],null])");
  // (2 + 0 + 0 - 3) // 3 + 1 = 0: Python floors the negative numerator.
  CHECK_SPEC_FACTS(R"("spatial":[2,12])", R"(["SpecError","PoolSpec.window",[3,3],null])");
  CHECK_SPEC_FACTS(R"("n":1048576,"c":2048)", R"(["SpecError","PoolSpec.n",1048576,2147483647])");
}

}  // namespace
}  // namespace rocke::pool

int main() { return rocke::testing::run_all(); }
