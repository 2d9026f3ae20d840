// For common_parity_test: the .rk text of small kernels made with common.h
// (flatten, unflatten, a Frame's tap, weight and bias epilogue), as one JSON
// object name -> text. common_parity_test makes the same kernels with
// Python's common.py; each construction here mirrors one there, call for call.
#include <iostream>
#include <string>
#include <vector>

#include "library/conv/cpp/common.h"
#include "library/conv/cpp/spec.h"
#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/printer.h"
#include "platform/ir/cpp/types.h"

namespace rocke::conv {
namespace {

using ir::Value;

std::string index_kernel() {
  ir::KernelBuilder b("index", "gfx942", {64, 1, 1});
  Value* x = b.arg("x", ir::ptr("global"));
  Value* lane = b.thread_id(0);
  std::vector<Value*> coords = unflatten(b, lane, {2, 3, 4});
  Value* j = flatten(b, coords, {2, 3, 4});
  Value* bytes = b.mul(j, 4);
  Value* address = b.offset(x, bytes);
  b.store(address, j);
  return ir::print_kernel(*b.finish());
}

// An IR tap in dimension 0 and a number tap in dimension 1.
std::string frame_kernel(const std::string& spec_json) {
  Frame fr("frame", ConvSpec::from_json(json::parse(spec_json)), "gfx1201");
  auto kernel = fr.kernel([&] {
    Value* c = fr.b.thread_id(1);
    Value* input = fr.tap(c, {c, 2});
    Value* weight = fr.weight(c);
    Value* zero = fr.b.const_(0.0, ir::scalar("f32"));
    fr.store(fr.b.fma(input, weight, zero));
  });
  return ir::print_kernel(*kernel);
}

}  // namespace
}  // namespace rocke::conv

int main() {
  using rocke::conv::frame_kernel;
  rocke::json::Object out = {
      {"index", rocke::conv::index_kernel()},
      {"frame_nchw_bias",
       frame_kernel(R"({"n":1,"c":4,"k":6,"spatial":[5,7],"filter":[3,3],"stride":[2,1],"pad":[1,0],)"
                    R"("dilation":[1,2],"layout":"NCHW","bias":true,"activation":"relu"})")},
      {"frame_nhwc_epilogue",
       frame_kernel(R"({"n":1,"c":4,"k":6,"spatial":[5,7],"filter":[3,3],"pad":[1,1],"activation":"gelu_erf",)"
                    R"("residual":"before_activation","scale":"0.5"})")},
      {"frame_nhwc_f32", frame_kernel(R"({"n":2,"c":3,"k":4,"spatial":[6,5],"filter":[2,3],"dtype":"f32"})")},
  };
  std::cout << rocke::json::canonical(out) << "\n";
  return 0;
}
