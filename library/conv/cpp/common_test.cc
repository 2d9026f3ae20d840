// common.h against common.py: the .rk text of a kernel made with flatten and
// unflatten, and of a Frame's tap (an IR tap and a number tap), weight and
// bias epilogue, must be the text Python's common.py gives for the same
// calls. The expected texts were printed by Python (print_kernel of the same
// construction in library/conv/common.py), not by this code.
#include "library/conv/cpp/common.h"

#include <string>

#include "library/conv/cpp/spec.h"
#include "platform/cpp/ir/printer.h"
#include "platform/cpp/json/json.h"
#include "platform/cpp/testing/check.h"
#include "platform/cpp/types/types.h"

namespace rocke::conv {
namespace {

using ir::Value;

// b = KernelBuilder("index", arch="gfx942", workgroup_size=(64, 1, 1))
// x = b.arg("x", T.GLOBAL)
// coords = common.unflatten(b, b.thread_id(0), (2, 3, 4))
// j = common.flatten(b, coords, (2, 3, 4))
// b.store(b.offset(x, b.mul(j, 4)), j)
constexpr const char* kIndexText = R"rk(kernel @index(%x: ptr<global>) {arch = "gfx942", wave_size = 64, workgroup_size = [64, 1, 1]} {
  %0 = gpu.thread_id() {dim = 0} : i32
  %1 = arith.const() {value = 4} : i32
  %2 = arith.rem(%0, %1) : i32
  %3 = arith.const() {value = 4} : i32
  %4 = arith.div(%0, %3) : i32
  %5 = arith.const() {value = 3} : i32
  %6 = arith.rem(%4, %5) : i32
  %7 = arith.const() {value = 3} : i32
  %8 = arith.div(%4, %7) : i32
  %9 = arith.const() {value = 3} : i32
  %10 = arith.mul(%8, %9) : i32
  %11 = arith.add(%10, %6) : i32
  %12 = arith.const() {value = 4} : i32
  %13 = arith.mul(%11, %12) : i32
  %14 = arith.add(%13, %2) : i32
  %15 = arith.const() {value = 4} : i32
  %16 = arith.mul(%14, %15) : i32
  %17 = mem.offset(%x, %16) : ptr<global>
  mem.store(%17, %14)
}
)rk";

ROCKE_TEST(flatten_and_unflatten_make_pythons_ops) {
  ir::KernelBuilder b("index", "gfx942", {64, 1, 1});
  Value* x = b.arg("x", ir::ptr("global"));
  Value* lane = b.thread_id(0);
  std::vector<Value*> coords = unflatten(b, lane, {2, 3, 4});
  Value* j = flatten(b, coords, {2, 3, 4});
  Value* bytes = b.mul(j, 4);
  Value* address = b.offset(x, bytes);
  b.store(address, j);
  CHECK_EQ(ir::print_kernel(*b.finish()), std::string(kIndexText));
}

// spec = ConvSpec(1, 4, 6, (5, 7), (3, 3), stride=(2, 1), pad=(1, 0), dilation=(1, 2), layout="NCHW", bias_relu=True)
// fr = common.Frame("frame", spec, "gfx1201")
// def body():
//     c = fr.b.thread_id(1)
//     fr.store(fr.b.fma(fr.tap(c, [c, 2]), fr.weight(c), fr.b.const(0.0, T.F32)))
// fr.kernel(body)
constexpr const char* kFrameText = R"rk(kernel @frame(%x: ptr<global>, %w: ptr<global>, %y: ptr<global>, %bias: ptr<global>) {arch = "gfx1201", wave_size = 32, workgroup_size = [256, 1, 1]} {
  %0 = gpu.block_id() {dim = 0} : i32
  %1 = arith.const() {value = 256} : i32
  %2 = arith.mul(%0, %1) : i32
  %3 = gpu.thread_id() {dim = 0} : i32
  %4 = arith.add(%2, %3) : i32
  %5 = arith.const() {value = 3} : i32
  %6 = arith.rem(%4, %5) : i32
  %7 = arith.const() {value = 3} : i32
  %8 = arith.div(%4, %7) : i32
  %9 = arith.const() {value = 3} : i32
  %10 = arith.rem(%8, %9) : i32
  %11 = arith.const() {value = 3} : i32
  %12 = arith.div(%8, %11) : i32
  %13 = arith.const() {value = 6} : i32
  %14 = arith.rem(%12, %13) : i32
  %15 = arith.const() {value = 6} : i32
  %16 = arith.div(%12, %15) : i32
  %17 = arith.const() {value = 54} : i32
  %18 = arith.cmp(%4, %17) {pred = "lt"} : i1
  scf.if(%18) {
    %19 = gpu.thread_id() {dim = 1} : i32
    %20 = arith.const() {value = 2} : i32
    %21 = arith.mul(%10, %20) : i32
    %22 = arith.const() {value = 1} : i32
    %23 = arith.mul(%19, %22) : i32
    %24 = arith.const() {value = 1} : i32
    %25 = arith.sub(%23, %24) : i32
    %26 = arith.add(%21, %25) : i32
    %27 = arith.const() {value = 0} : i32
    %28 = arith.cmp(%26, %27) {pred = "ge"} : i1
    %29 = arith.const() {value = 5} : i32
    %30 = arith.cmp(%26, %29) {pred = "lt"} : i1
    %31 = arith.and(%28, %30) : i1
    %32 = arith.const() {value = 0} : i32
    %33 = arith.select(%31, %26, %32) : i32
    %34 = arith.const() {value = 1} : i32
    %35 = arith.mul(%6, %34) : i32
    %36 = arith.const() {value = 4} : i32
    %37 = arith.add(%35, %36) : i32
    %38 = arith.const() {value = 0} : i32
    %39 = arith.cmp(%37, %38) {pred = "ge"} : i1
    %40 = arith.const() {value = 7} : i32
    %41 = arith.cmp(%37, %40) {pred = "lt"} : i1
    %42 = arith.and(%39, %41) : i1
    %43 = arith.and(%31, %42) : i1
    %44 = arith.const() {value = 0} : i32
    %45 = arith.select(%42, %37, %44) : i32
    %46 = arith.const() {value = 4} : i32
    %47 = arith.mul(%16, %46) : i32
    %48 = arith.add(%47, %19) : i32
    %49 = arith.const() {value = 5} : i32
    %50 = arith.mul(%48, %49) : i32
    %51 = arith.add(%50, %33) : i32
    %52 = arith.const() {value = 7} : i32
    %53 = arith.mul(%51, %52) : i32
    %54 = arith.add(%53, %45) : i32
    %55 = arith.const() {value = 2} : i32
    %56 = arith.mul(%54, %55) : i32
    %57 = mem.offset(%x, %56) : ptr<global>
    %58 = mem.load(%57) : f16
    %59 = arith.convert(%58) : f32
    %60 = arith.const() {value = 0x0000000000000000} : f32
    %61 = arith.select(%43, %59, %60) : f32
    %62 = arith.const() {value = 2} : i32
    %63 = arith.mul(%19, %62) : i32
    %64 = mem.offset(%w, %63) : ptr<global>
    %65 = mem.load(%64) : f16
    %66 = arith.convert(%65) : f32
    %67 = arith.const() {value = 0x0000000000000000} : f32
    %68 = math.fma(%61, %66, %67) : f32
    %69 = arith.const() {value = 4} : i32
    %70 = arith.mul(%14, %69) : i32
    %71 = mem.offset(%bias, %70) : ptr<global>
    %72 = mem.load(%71) : f32
    %73 = arith.add(%68, %72) : f32
    %74 = arith.const() {value = 0x0000000000000000} : f32
    %75 = arith.max(%73, %74) : f32
    %76 = arith.const() {value = 2} : i32
    %77 = arith.mul(%4, %76) : i32
    %78 = mem.offset(%y, %77) : ptr<global>
    %79 = arith.convert(%75) : f16
    mem.store(%78, %79)
    scf.yield()
  } {
    scf.yield()
  }
}
)rk";

ROCKE_TEST(the_frame_makes_pythons_ops) {
  ConvSpec spec = ConvSpec::from_json(json::parse(
      R"({"n":1,"c":4,"k":6,"spatial":[5,7],"filter":[3,3],"stride":[2,1],"pad":[1,0],"dilation":[1,2],)"
      R"("layout":"NCHW","bias_relu":true})"));
  Frame fr("frame", spec, "gfx1201");
  auto kernel = fr.kernel([&] {
    Value* c = fr.b.thread_id(1);
    Value* input = fr.tap(c, {c, 2});
    Value* weight = fr.weight(c);
    Value* zero = fr.b.const_(0.0, ir::scalar("f32"));
    fr.store(fr.b.fma(input, weight, zero));
  });
  CHECK_EQ(ir::print_kernel(*kernel), std::string(kFrameText));
}

}  // namespace
}  // namespace rocke::conv

int main() { return rocke::testing::run_all(); }
