// Every rule of platform/ir/verifier.py failing with its message. The
// expected strings are read off verifier.py's f-strings, with the arch facts
// of platform/arch/archs.json; ir_parity_test runs Python itself.
#include "platform/ir/cpp/verifier.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "platform/cpp/testing/check.h"
#include "platform/ir/cpp/core.h"

using namespace rocke::ir;

namespace {

const Type* S(const char* name) { return scalar(name); }
const Type* V(const char* name, int n) { return vector(scalar(name), n); }

std::unique_ptr<Kernel> kernel(const char* arch = "gfx942", int wave = 64) {
  auto k = std::make_unique<Kernel>();
  k->name = "k";
  k->attrs = {{"arch", arch}, {"wave_size", wave}, {"workgroup_size", AttrList{64, 1, 1}}};
  return k;
}

Op& add(Kernel& k, Block& b, const char* name, std::vector<Value*> operands, const std::vector<const Type*>& results,
        Attrs attrs = {}, int regions = 0) {
  auto op = std::make_unique<Op>();
  op->name = name;
  op->operands = std::move(operands);
  for (const Type* t : results) op->results.push_back(k.new_value(t));
  op->attrs = std::move(attrs);
  op->regions.resize(regions);
  b.ops.push_back(std::move(op));
  return *b.ops.back();
}

// An scf.if with empty yields in both arms, appended to `b`; returns its then-block.
Block& if_in(Kernel& k, Block& b) {
  Value* c = add(k, b, "arith.const", {}, {S("i1")}, {{"value", 1}}).results[0];
  Op& op = add(k, b, "scf.if", {c}, {}, {}, 2);
  add(k, op.regions[1], "scf.yield", {}, {});
  return op.regions[0];
}

void yield_at_end(Kernel& k, Block& b) { add(k, b, "scf.yield", {}, {}); }

}  // namespace

ROCKE_TEST(a_good_kernel_passes) {
  auto k = kernel();
  Value* x = k->new_value(ptr("global"), "x");
  k->args.push_back(x);
  Value* f = add(*k, k->body, "mem.load", {x}, {S("f32")}).results[0];
  Block& then = if_in(*k, k->body);
  add(*k, then, "mem.store", {x, f}, {});
  yield_at_end(*k, then);
  verify(*k);
}

ROCKE_TEST(kernel_name) {
  auto k = kernel();
  k->name = "1abc";
  CHECK_THROWS(VerifyError, verify(*k),
               "kernel: expected a name of ASCII letters, digits and _ (not first a digit), got \"1abc\"");
  k->name = "a-b";
  CHECK_THROWS(VerifyError, verify(*k),
               "kernel: expected a name of ASCII letters, digits and _ (not first a digit), got \"a-b\"");
  k->name = "";
  CHECK_THROWS(VerifyError, verify(*k),
               "kernel: expected a name of ASCII letters, digits and _ (not first a digit), got \"\"");
}

ROCKE_TEST(required_attributes) {
  auto k = kernel();
  k->attrs.erase("wave_size");
  CHECK_THROWS(VerifyError, verify(*k),
               "kernel @k: expected attribute wave_size, got attributes [\"arch\",\"workgroup_size\"]");
  k->attrs.clear();
  CHECK_THROWS(VerifyError, verify(*k), "kernel @k: expected attribute arch, got attributes []");
}

ROCKE_TEST(kernel_attributes) {
  const std::string archs = "gfx1100, gfx1151, gfx1201, gfx1250, gfx90a, gfx942, gfx950";
  auto k = kernel();
  k->attrs.at("arch") = AttrValue("gfx000");
  CHECK_THROWS(VerifyError, verify(*k), "kernel @k: expected arch to be a known arch (" + archs + "), got \"gfx000\"");
  k->attrs.at("arch") = AttrValue(942);
  CHECK_THROWS(VerifyError, verify(*k), "kernel @k: expected arch to be a known arch (" + archs + "), got 942");
  k = kernel("gfx942", 32);
  CHECK_THROWS(VerifyError, verify(*k), "kernel @k: expected a wave size of gfx942 (64), got 32");
  k = kernel("gfx1100", 16);
  CHECK_THROWS(VerifyError, verify(*k), "kernel @k: expected a wave size of gfx1100 (32, 64), got 16");
  const std::string wg =
      "kernel @k: expected workgroup_size to be [x, y, z] of positive ints with x*y*z <= 1024 on gfx942, got ";
  k = kernel();
  k->attrs.at("workgroup_size") = AttrValue(AttrList{64, 32, 1});
  CHECK_THROWS(VerifyError, verify(*k), wg + "[64, 32, 1]");
  k->attrs.at("workgroup_size") = AttrValue(AttrList{0, 1, 1});
  CHECK_THROWS(VerifyError, verify(*k), wg + "[0, 1, 1]");
  k->attrs.at("workgroup_size") = AttrValue(AttrList{64, 1});
  CHECK_THROWS(VerifyError, verify(*k), wg + "[64, 1]");
  k->attrs.at("workgroup_size") = AttrValue(AttrList{INT64_MAX, INT64_MAX, 2});
  CHECK_THROWS(VerifyError, verify(*k), wg + "[9223372036854775807, 9223372036854775807, 2]");
  k = kernel();
  k->attrs.emplace("waves_per_eu", 9);
  CHECK_THROWS(VerifyError, verify(*k), "kernel @k: expected waves_per_eu to be an int in 1..8 on gfx942, got 9");
  k = kernel();
  k->attrs.emplace("foo", 1);
  CHECK_THROWS(VerifyError, verify(*k),
               "kernel @k: expected an attribute among arch, wave_size, workgroup_size, waves_per_eu, got foo");
}

ROCKE_TEST(arguments) {
  const auto with_args = [](const std::vector<std::pair<const char*, const Type*>>& args) {
    auto k = kernel();
    for (const auto& [name, t] : args) k->args.push_back(k->new_value(t, name));
    return k;
  };
  CHECK_THROWS(
      VerifyError, verify(*with_args({{"v", V("f32", 4)}})),
      "kernel @k: expected arguments of scalar or global/constant/private pointer type, got %v: vector<4xf32>");
  CHECK_THROWS(VerifyError, verify(*with_args({{"p", ptr("lds")}})),
               "kernel @k: expected arguments of scalar or global/constant/private pointer type, got %p: ptr<lds>");
  CHECK_THROWS(
      VerifyError, verify(*with_args({{"x", S("f8e4m3")}})),
      "kernel @k: expected no fp8 argument (fp8 is storage-only), got %x: f8e4m3; pass it as i8 and arith.bitcast it, "
      "or as f32 and arith.convert it");
  CHECK_THROWS(VerifyError, verify(*with_args({{"x", S("i32")}, {"x", S("f32")}})),
               "kernel @k: expected distinct argument names of ASCII letters, digits and _ (not first a digit), got "
               "[\"x\",\"x\"]");
  CHECK_THROWS(VerifyError, verify(*with_args({{"x", S("i32")}, {"9y", S("f32")}})),
               "kernel @k: expected distinct argument names of ASCII letters, digits and _ (not first a digit), got "
               "[\"x\",\"9y\"]");
  verify(*with_args({{"x", ptr("constant")}, {"_y9", S("i64")}, {"z", ptr("private")}}));
}

ROCKE_TEST(nesting_depth) {
  // The body is depth 1: 99 nested ifs reach depth 100, 100 reach 101.
  for (const int ifs : {99, 100}) {
    auto k = kernel();
    Block* b = &k->body;
    for (int i = 0; i < ifs; ++i) {
      Block& then = if_in(*k, *b);
      b = &then;
    }
    // Close every then-block with its yield (ifs were made innermost last).
    std::vector<Block*> blocks;
    for (const Op* op : walk(k->body)) {
      if (op->name == "scf.if") blocks.push_back(const_cast<Block*>(op->regions.data()));
    }
    for (Block* then : blocks) yield_at_end(*k, *then);
    if (ifs == 99) {
      verify(*k);
    } else {
      CHECK_THROWS(VerifyError, verify(*k),
                   "region: expected regions nested at most 100 deep, got a region at depth 101");
    }
  }
}

ROCKE_TEST(ops_and_scoping) {
  auto k = kernel();
  add(*k, k->body, "foo.bar", {}, {});
  CHECK_THROWS(VerifyError, verify(*k), "op: expected a known op, got \"foo.bar\"");

  // A named value that is not an argument, and an unnamed one defined inside a region.
  k = kernel();
  Value* y = k->new_value(S("i32"), "y");
  add(*k, k->body, "arith.neg", {y}, {S("i32")});
  CHECK_THROWS(VerifyError, verify(*k),
               "arith.neg: expected operand 0 defined before use in an enclosing block, got Value(y: i32)");

  k = kernel();
  Block& then = if_in(*k, k->body);
  Value* inner = add(*k, then, "gpu.lane_id", {}, {S("i32")}).results[0];
  yield_at_end(*k, then);
  add(*k, k->body, "arith.add", {inner, inner}, {S("i32")});
  // Python prints id(value) for an unnamed value; C++ its address.
  CHECK_THROWS(VerifyError, verify(*k),
               "arith.add: expected operand 0 defined before use in an enclosing block, got Value(" +
                   std::to_string(reinterpret_cast<std::uintptr_t>(inner)) + ": i32)");

  // A value of another kernel is never in scope, even where one of this
  // kernel's visible values has its index.
  k = kernel();
  Value* mine = k->new_value(S("i32"), "mine");
  k->args.push_back(mine);
  auto other = kernel();
  Value* theirs = other->new_value(S("i32"), "theirs");
  CHECK_EQ(theirs->index, mine->index);
  add(*k, k->body, "arith.neg", {theirs}, {S("i32")});
  CHECK_THROWS(VerifyError, verify(*k),
               "arith.neg: expected operand 0 defined before use in an enclosing block, got Value(theirs: i32)");

  k = kernel();
  add(*k, k->body, "gpu.lane_id", {nullptr}, {S("i32")});
  CHECK_THROWS(VerifyError, verify(*k),
               "gpu.lane_id: expected operand 0 defined before use in an enclosing block, got None");

  // The rule of every op runs.
  k = kernel();
  add(*k, k->body, "gpu.lane_id", {}, {S("i64")});
  CHECK_THROWS(VerifyError, verify(*k), "gpu.lane_id: expected an i32 result, got i64");
}

ROCKE_TEST(yield_placement) {
  auto k = kernel();
  yield_at_end(*k, k->body);
  CHECK_THROWS(VerifyError, verify(*k),
               "scf.yield: expected scf.yield only as the last op of a for or if region, got position 0 of 1");
  k = kernel();
  Block& then = if_in(*k, k->body);
  yield_at_end(*k, then);
  yield_at_end(*k, then);  // the if's rule sees a yield last; the block check sees the first
  CHECK_THROWS(VerifyError, verify(*k),
               "scf.yield: expected scf.yield only as the last op of a for or if region, got position 0 of 2");
}

ROCKE_TEST(lds_alloc_placement_and_total) {
  auto k = kernel();
  Block& then = if_in(*k, k->body);
  add(*k, then, "mem.lds_alloc", {}, {ptr("lds")}, {{"bytes", 16}, {"align", 16}});
  yield_at_end(*k, then);
  CHECK_THROWS(
      VerifyError, verify(*k),
      "mem.lds_alloc: expected mem.lds_alloc only in the kernel's top-level block (LDS is static), got one inside a "
      "for/if region; move it before the loop or if");

  // 65530 rounds up to 65536: exactly gfx942's LDS; one byte more rounds to 65552.
  k = kernel();
  add(*k, k->body, "mem.lds_alloc", {}, {ptr("lds")}, {{"bytes", 65530}, {"align", 16}});
  verify(*k);
  k = kernel();
  add(*k, k->body, "mem.lds_alloc", {}, {ptr("lds")}, {{"bytes", 65537}, {"align", 16}});
  CHECK_THROWS(
      VerifyError, verify(*k),
      "kernel @k: expected at most 65536 bytes of LDS on gfx942, got 65552 bytes in 1 mem.lds_alloc; use smaller tiles "
      "or an arch with more LDS");
  k = kernel();
  add(*k, k->body, "mem.lds_alloc", {}, {ptr("lds")}, {{"bytes", 40000}, {"align", 4}});
  add(*k, k->body, "mem.lds_alloc", {}, {ptr("lds")}, {{"bytes", INT64_MAX}, {"align", 8}});
  // Python: 40000 + -(-(2**63 - 1) // 8) * 8
  CHECK_THROWS(
      VerifyError, verify(*k),
      "kernel @k: expected at most 65536 bytes of LDS on gfx942, got 9223372036854815808 bytes in 2 mem.lds_alloc; use "
      "smaller tiles or an arch with more LDS");
}

ROCKE_TEST(mma_fragments) {
  const auto with_mma = [](const char* arch, int wave, const char* id, const Type* a, const Type* c) {
    auto k = kernel(arch, wave);
    // Fragments come from loads of a pointer argument.
    Value* p = k->new_value(ptr("global"), "p");
    k->args.push_back(p);
    // A load of at most 16 bytes, or a shuffle of two half-loads.
    const auto fragment = [&](const Type* t) {
      if (t->nbytes() <= 16) return add(*k, k->body, "mem.load", {p}, {t}).results[0];
      Value* half = add(*k, k->body, "mem.load", {p}, {vector(t->element(), t->lanes() / 2)}).results[0];
      AttrList mask;
      for (int i = 0; i < t->lanes(); ++i) mask.emplace_back(i);
      return add(*k, k->body, "vector.shuffle", {half, half}, {t}, {{"mask", mask}}).results[0];
    };
    Value* x = fragment(a);
    Value* acc = fragment(c);
    add(*k, k->body, "matrix.mma", {x, x, acc}, {c}, {{"op", id}});
    return k;
  };
  // gfx1100 has no 32x32 form.
  CHECK_THROWS(VerifyError, verify(*with_mma("gfx1100", 32, "mma_32x32x8_f16_f32", V("f16", 4), V("f32", 4))),
               "matrix.mma: expected an op id gfx1100 has (mma_16x16x16_bf16_f32, mma_16x16x16_f16_f32), got "
               "mma_32x32x8_f16_f32");
  CHECK_THROWS(VerifyError, verify(*with_mma("gfx1100", 64, "mma_16x16x16_f16_f32", V("f16", 16), V("f32", 8))),
               "matrix.mma: expected a wave32 kernel for mma_16x16x16_f16_f32 on gfx1100, got wave_size 64; build the "
               "kernel with "
               "wave_size=32");
  CHECK_THROWS(
      VerifyError, verify(*with_mma("gfx942", 64, "mma_16x16x16_f16_f32", V("f16", 8), V("f32", 4))),
      "matrix.mma: expected mma_16x16x16_f16_f32 fragments on gfx942 (vector<4xf16>, vector<4xf16>, vector<4xf32>), "
      "got vector<8xf16>, vector<8xf16>, vector<4xf32>");
  verify(*with_mma("gfx942", 64, "mma_16x16x16_f16_f32", V("f16", 4), V("f32", 4)));
  verify(*with_mma("gfx1100", 32, "mma_16x16x16_f16_f32", V("f16", 16), V("f32", 8)));
}

int main() { return rocke::testing::run_all(); }
