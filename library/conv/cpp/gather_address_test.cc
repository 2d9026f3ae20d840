// gather_address.h's own facts: whole_units against the 16-byte unit's
// arithmetic, and the shapes of what output_pixel and input_address return.
// That their ops are Python's op for op is what conv_igemm_fwd's, _wgrad's
// and _dgrad's byte-identity tests check, on every case; gather_address_test.py
// checks the addresses themselves against numpy.
#include "library/conv/cpp/gather_address.h"

#include <string>

#include "library/conv/cpp/spec.h"
#include "platform/cpp/json/json.h"
#include "platform/cpp/testing/check.h"
#include "platform/ir/cpp/types.h"

namespace rocke::conv {
namespace {

ConvSpec from(const std::string& text) { return ConvSpec::from_json(json::parse(text)); }

ROCKE_TEST(whole_units_are_multiples_of_the_unit) {
  CHECK(whole_units(8, "f16"));
  CHECK(whole_units(16, "bf16"));
  CHECK(whole_units(4, "f32"));
  CHECK(!whole_units(4, "f16"));
  CHECK(!whole_units(12, "bf16"));
  CHECK(!whole_units(6, "f32"));
}

ROCKE_TEST(a_pixel_has_one_position_per_spatial_dimension) {
  for (const char* text : {R"({"n":2,"c":4,"k":4,"spatial":[5,6],"filter":[3,3]})",
                           R"({"n":1,"c":4,"k":2,"spatial":[3,4,3],"filter":[2,1,2]})"}) {
    const ConvSpec c = from(text);
    ir::KernelBuilder b("pixel", "gfx942", {64, 1, 1});
    const Pixel px = output_pixel(b, c, b.thread_id(0));
    CHECK(px.n != nullptr);
    CHECK_EQ(px.o.size(), c.spatial.size());
  }
}

ROCKE_TEST(an_address_is_an_i32_index_and_an_i1_validity_in_either_layout) {
  for (const char* layout : {"NHWC", "NCHW"}) {
    const ConvSpec c = from(std::string(R"({"n":1,"c":6,"k":4,"spatial":[7,5],"filter":[2,3],"groups":2,"layout":")") +
                            layout + "\"}");
    ir::KernelBuilder b("address", "gfx942", {64, 1, 1});
    const Pixel px = output_pixel(b, c, b.thread_id(0));
    const auto [index, valid] = input_address(b, c, b.block_id(2), px, b.block_id(1));
    CHECK(index->type == ir::scalar("i32"));
    CHECK(valid->type == ir::scalar("i1"));
  }
}

}  // namespace
}  // namespace rocke::conv

int main() { return rocke::testing::run_all(); }
