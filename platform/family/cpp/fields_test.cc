// SpecFields and its helpers against the facts Python's spec_fields and the
// specs' checks give for the same JSON (class, field, value, allowed).
#include "platform/family/cpp/fields.h"

#include <array>
#include <functional>
#include <string>
#include <string_view>

#include "platform/cpp/json/json.h"
#include "platform/cpp/testing/check.h"
#include "platform/family/cpp/family.h"

namespace {

using namespace rocke;

constexpr family::SpecRefusal kFail("toy.spec.SpecError", "ToySpec");
constexpr std::array<std::string_view, 4> kFields = {"rows", "dtype", "eps", "mask"};
constexpr std::array<std::string_view, 2> kDtypes = {"f16", "f32"};

// The canonical facts of the SpecError `read` throws, with its message's
// field check, or "accepted".
std::string refusal(const std::function<void()>& read) {
  try {
    read();
  } catch (const family::SpecError& e) {
    if (e.python_class() != "toy.spec.SpecError") return "wrong class " + e.python_class();
    if (!std::string_view(e.what()).starts_with(e.field()))
      return "message does not start with the field: " + std::string(e.what());
    return json::canonical(e.facts());
  }
  return "accepted";
}

std::string read_whole(std::string_view text) {
  return refusal([&] { family::SpecFields(kFail, kFields, 2, json::parse(text)); });
}

ROCKE_TEST(refuses_what_is_no_spec_object) {
  CHECK_EQ(read_whole("[1]"), std::string(R"(["SpecError","ToySpec",[1],["rows","dtype","eps","mask"]])"));
  CHECK_EQ(read_whole(R"({"rows":1,"dtype":"f16","window":2})"),
           std::string(R"(["SpecError","ToySpec.window","window",["rows","dtype","eps","mask"]])"));
  CHECK_EQ(read_whole(R"({"rows":1})"), std::string(R"(["SpecError","ToySpec.dtype",null,null])"));
  CHECK_EQ(read_whole(R"({"rows":1,"dtype":"f16"})"), std::string("accepted"));
}

ROCKE_TEST(reads_each_kind_of_field) {
  const json::Value obj = json::parse(R"({"rows":7,"dtype":"f32","eps":"1e-5"})");
  const family::SpecFields f(kFail, kFields, 2, obj);
  CHECK_EQ(f.positive_int("rows"), std::int64_t{7});
  CHECK_EQ(f.choice("dtype", kDtypes), std::string("f32"));
  CHECK_EQ(f.decimal("eps", "1", "a positive decimal"), std::string("1e-5"));
  CHECK_EQ(f.flag("mask", true), true);  // left out: the fallback
  CHECK(f.has("eps") && !f.has("mask"));
}

std::string read_field(std::string_view text, const std::function<void(const family::SpecFields&)>& reader) {
  const json::Value obj = json::parse(text);
  return refusal([&] { reader(family::SpecFields(kFail, kFields, 0, obj)); });
}

ROCKE_TEST(refuses_a_bad_value_naming_the_field) {
  auto rows = [](const family::SpecFields& f) { f.positive_int("rows"); };
  CHECK_EQ(read_field(R"({"rows":0})", rows), std::string(R"(["SpecError","ToySpec.rows",0,null])"));
  CHECK_EQ(read_field(R"({"rows":true})", rows), std::string(R"(["SpecError","ToySpec.rows",true,null])"));
  CHECK_EQ(read_field(R"({"rows":2147483648})", rows),
           std::string(R"(["SpecError","ToySpec.rows",2147483648,2147483647])"));
  CHECK_EQ(read_field(R"({"rows":2147483647})", rows), std::string("accepted"));
  auto dtype = [](const family::SpecFields& f) { f.choice("dtype", kDtypes); };
  CHECK_EQ(read_field(R"({"dtype":"f64"})", dtype),
           std::string(R"(["SpecError","ToySpec.dtype","f64",["f16","f32"]])"));
  auto mask = [](const family::SpecFields& f) { f.flag("mask", false); };
  CHECK_EQ(read_field(R"({"mask":1})", mask), std::string(R"(["SpecError","ToySpec.mask",1,null])"));
  auto eps = [](const family::SpecFields& f) { f.decimal("eps", nullptr, "a positive decimal"); };
  CHECK_EQ(read_field(R"({"eps":1})", eps), std::string(R"(["SpecError","ToySpec.eps",1,null])"));
  CHECK_EQ(read_field(R"({})", eps), std::string(R"(["SpecError","ToySpec.eps",null,null])"));
}

ROCKE_TEST(positive_decimal_is_positive_and_finite_as_f32) {
  for (const char* good : {"1", "0.5", "1e-5", "1E+3", "3.3e38", "1e-45"}) CHECK(family::positive_decimal(good));
  // 1e-50 rounds to f32 zero, 1e39 past the largest f32; 3.4e38 at the cutoff (fields.positive_decimal refuses from
  // 3.4e38 on).
  for (const char* bad : {"0", "0.0", "1e-50", "1e39", "3.4e38", " 1", "-1", "+1", ".5", "1.", "inf", "nan", ""}) {
    CHECK(!family::positive_decimal(bad));
  }
}

ROCKE_TEST(digits_spell_128_bit_counts) {
  CHECK_EQ(family::digits(0), std::string("0"));
  CHECK_EQ(family::digits(static_cast<unsigned __int128>(1) << 64), std::string("18446744073709551616"));
}

ROCKE_TEST(joined_and_listed) {
  CHECK_EQ(family::joined(kDtypes), std::string("f16, f32"));
  CHECK_EQ(json::canonical(family::listed(kDtypes)), std::string(R"(["f16","f32"])"));
}

}  // namespace

int main() { return testing::run_all(); }
