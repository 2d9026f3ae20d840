// conv_direct_fwd and conv_img2col as the C++ registry sees them (conv_igemm_fwd
// has its own spec parity test): registered by linking,
// their specs read as Python reads them, the kernel's frame as common.py
// makes it. The kernels' ops are checked byte for byte against Python by
// NAME_byte_identity_llvmNN (library/conv/BUILD.bazel).
#include <algorithm>
#include <string>

#include "platform/cpp/json/json.h"
#include "platform/cpp/testing/check.h"
#include "platform/family/cpp/family.h"

namespace rocke::conv {
namespace {

family::Case conv_case(const std::string& spec) { return {"probe", "gfx942", json::parse(spec)}; }

ROCKE_TEST(both_families_register_by_linking) {
  std::vector<std::string> names = family::names();
  CHECK(std::find(names.begin(), names.end(), "conv_direct_fwd") != names.end());
  CHECK(std::find(names.begin(), names.end(), "conv_img2col") != names.end());
}

ROCKE_TEST(spec_json_fills_the_defaults) {
  json::Value spec = json::parse(R"({"n":1,"c":8,"k":4,"spatial":[7,9],"filter":[3,3],"pad":[1,0]})");
  // spec_test.py's test_to_json_is_every_field_with_lists_and_the_defaults_filled.
  json::Value want = json::parse(R"({"n":1,"c":8,"k":4,"spatial":[7,9],"filter":[3,3],"stride":[1,1],"pad":[1,0],)"
                                 R"("dilation":[1,1],"groups":1,"layout":"NHWC","dtype":"f16","bias":false,)"
                                 R"("activation":"none","residual":"none","scale":"1"})");
  CHECK(family::get("conv_direct_fwd").spec_json(spec) == want);
  CHECK(family::get("conv_img2col").spec_json(spec) == want);
}

ROCKE_TEST(img2col_refuses_groups_as_python_does) {
  const family::Case grouped = conv_case(R"({"n":1,"c":8,"k":4,"spatial":[7,9],"filter":[3,3],"groups":2})");
  CHECK_THROWS(family::Refusal, family::get("conv_img2col").build(grouped),
               "ConvSpec.groups: expected 1 (conv_img2col is one GEMM), got 2; conv_direct_fwd or conv_igemm_fwd take "
               "grouped layers");
  // The Python class the engines raise and the manifest names.
  std::string python_class, class_name;
  try {
    family::get("conv_img2col").build(grouped);
  } catch (const family::Refusal& e) {
    python_class = e.python_class();
    class_name = e.class_name();
    CHECK_EQ(json::canonical(e.facts()), std::string(R"(["Img2colSpecError","ConvSpec.groups",2,[1]])"));
  }
  CHECK_EQ(python_class, std::string("conv.img2col.Img2colSpecError"));
  CHECK_EQ(class_name, std::string("Img2colSpecError"));
}

ROCKE_TEST(the_frame_names_the_kernel_and_its_arguments) {
  for (const char* name : {"conv_direct_fwd", "conv_img2col"}) {
    auto plain = family::get(name).build(conv_case(R"({"n":1,"c":8,"k":4,"spatial":[7,9],"filter":[3,3]})"));
    CHECK_EQ(plain->name, std::string(name) + "_probe");
    CHECK_EQ(plain->args.size(), 3u);
    CHECK_EQ(plain->arch(), std::string("gfx942"));
    auto bias = family::get(name).build(
        conv_case(R"({"n":1,"c":8,"k":4,"spatial":[7,9],"filter":[3,3],"bias":true,"residual":"after_activation"})"));
    CHECK_EQ(bias->args.size(), 5u);
    CHECK_EQ(bias->args[3]->name, std::string("bias"));
    CHECK_EQ(bias->args.back()->name, std::string("residual"));
  }
}

}  // namespace
}  // namespace rocke::conv

int main() { return rocke::testing::run_all(); }
