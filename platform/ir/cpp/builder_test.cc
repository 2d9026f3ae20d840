// The builder against platform/ir/builder.py: every op built, the constant
// coercion, the regions, finish(), and the errors in C++'s wording;
// ir_parity_test compares their facts with Python's.
#include "platform/ir/cpp/builder.h"

#include <set>
#include <string>
#include <vector>

#include "platform/cpp/testing/check.h"
#include "platform/ir/cpp/ops.h"

using namespace rocke::ir;

namespace {

const Type* S(const char* name) { return scalar(name); }
const Type* V(const char* name, int n) { return vector(scalar(name), n); }

// "name name ..." of the ops of a block and its regions, in program order.
std::string names(const Block& b) {
  std::string out;
  for (const Op* op : walk(b)) out += (out.empty() ? "" : " ") + op->name;
  return out;
}

// The constants' values in program order, as repr() would print them.
std::vector<AttrValue> consts(const Block& b) {
  std::vector<AttrValue> out;
  for (const Op* op : walk(b)) {
    if (op->name == "arith.const") out.push_back(op->attrs.at("value"));
  }
  return out;
}

}  // namespace

ROCKE_TEST(kernel_attributes) {
  KernelBuilder b("k", "gfx1100", {128, 2, 1});
  CHECK_EQ(b.wave_size(), 32);  // the arch's default, its first
  CHECK(b.workgroup_size() == (std::array<int, 3>{128, 2, 1}));
  CHECK_EQ(b.arch().name, "gfx1100");
  KernelBuilder w("k", "gfx1100", {64, 1, 1}, 64, 4);
  auto k = w.finish();
  CHECK(k->attrs.at("wave_size") == AttrValue(64));
  CHECK(k->attrs.at("waves_per_eu") == AttrValue(4));
  CHECK(k->attrs.at("workgroup_size") == AttrValue(AttrList{64, 1, 1}));
  CHECK_EQ(k->arch(), "gfx1100");
  CHECK(!KernelBuilder("k", "gfx942", {64, 1, 1}).finish()->attrs.contains("waves_per_eu"));
}

ROCKE_TEST(builds_every_op) {
  KernelBuilder b("every", "gfx942", {256, 1, 1});
  Value* x = b.arg("x", ptr("global"));
  Value* n = b.arg("n", S("i32"));
  Value* t = b.thread_id(0);
  Value* bid = b.block_id(1);
  Value* bd = b.block_dim(2);
  Value* gd = b.grid_dim(0);
  Value* lane = b.lane_id();
  Value* i = b.add(t, bid);
  i = b.sub(i, bd);
  i = b.mul(i, gd);
  i = b.div(i, 3);
  i = b.rem(i, lane);
  i = b.urem(b.udiv(i, 5), 9);
  i = b.min(i, n);
  i = b.max(i, 0);
  i = b.and_(i, 255);
  i = b.or_(i, 1);
  i = b.xor_(i, 2);
  i = b.shl(i, 2);
  i = b.shr(i, 1);
  Value* f = b.load(x, S("f32"));
  f = b.neg(f);
  f = b.exp(f);
  f = b.exp2(f);
  f = b.log(f);
  f = b.sqrt(f);
  f = b.rsqrt(f);
  f = b.readfirstlane(f);
  f = b.fma(f, f, f);
  Value* c = b.cmp("lt", i, n);
  f = b.select(c, f, 1.0);
  Value* h = b.convert(f, S("f16"));
  CHECK(b.convert(h, S("f16")) == h);  // already of the type: no op
  Value* bits = b.bitcast(h, S("i16"));
  Value* v = b.build({h, h, h, h});
  Value* e = b.extract(v, 3);
  v = b.insert(v, e, 0);
  v = b.shuffle(v, v, {0, 1, 4, 5});
  b.barrier();
  b.lds_barrier();
  b.sched_barrier();
  Value* moved = b.bpermute(0, f);
  Value* lds = b.lds_alloc(1024);
  Value* q = b.offset(lds, 16);
  b.store(q, moved);
  b.load_to_lds(x, lds);
  b.store(x, b.load_transpose(q, S("f16")));
  Value* wide = b.load_wide(x, V("f32", 8));
  b.store_wide(x, wide);
  b.atomic_add(x, f);
  Value* rsrc = b.buffer_rsrc(x, 4096);
  Value* bl = b.buffer_load(rsrc, 0, S("i16"));
  b.buffer_store(rsrc, 2, b.xor_(bl, bits));
  b.buffer_load_to_lds(rsrc, 0, 0, lds);
  Value* fa = b.load(x, V("f16", 4));
  Value* acc = b.load(x, V("f32", 4));
  Value* d = b.mma("mma_16x16x16_f16_f32", fa, fa, acc);
  const std::vector<Value*> sums = b.for_range(0, n, 1, {d}, [&](const Loop& loop) {
    Value* s = b.add(loop.iters[0], loop.iters[0]);
    b.yield_({s});
  });
  const std::vector<Value*> picked = b.if_(c, {V("f32", 4)}, [&] { b.yield_({sums[0]}); }, [&] { b.yield_({d}); });
  b.store(x, picked[0]);
  auto k = b.finish();
  std::set<std::string> built;
  for (const Op* op : walk(k->body)) built.insert(op->name);
  std::set<std::string> all;
  for (const rocke::ops::Schema& s : rocke::ops::all()) all.emplace(s.name);
  CHECK(built == all);
  CHECK_EQ(k->args.size(), 2u);
  CHECK_EQ(k->args[0]->name, "x");
}

ROCKE_TEST(numbers_become_constants_of_the_other_type) {
  KernelBuilder b("k", "gfx942", {64, 1, 1});
  Value* f = b.arg("f", S("f32"));
  Value* i = b.arg("i", S("i64"));
  b.add(2, f);    // an int for a float operand: 2.0
  b.mul(i, 3);    // an int for an i64
  b.sub(1.5, f);  // a is the number: its constant comes before the op
  b.const_(7, S("bf16"));
  b.lds_alloc(64);
  auto k = b.finish();
  CHECK_EQ(names(k->body),
           "arith.const arith.add arith.const arith.mul arith.const arith.sub arith.const mem.lds_alloc");
  CHECK(consts(k->body) == (std::vector<AttrValue>{2.0, 3, 1.5, 7.0}));
  CHECK(consts(k->body)[1].is_int());
  CHECK(k->body.ops[1]->operands[1] == f);
  CHECK(k->body.ops[1]->operands[0] == k->body.ops[0]->result());
  CHECK(k->body.ops[0]->result()->type == S("f32"));
  CHECK(k->body.ops[2]->result()->type == S("i64"));
  // lds_alloc's default alignment is 16
  CHECK(k->body.ops[7]->attrs.at("align") == AttrValue(16));
}

ROCKE_TEST(coercion_errors) {
  KernelBuilder b("k", "gfx942", {64, 1, 1});
  Value* v = b.arg("p", ptr("global"));
  Value* f = b.arg("f", S("f32"));
  Value* vec = b.build({f, f, f, f});
  // builder._pair / _coerce
  CHECK_THROWS(VerifyError, b.add(1, 2), "operand: expected at least one Value, got 1 and 2");
  CHECK_THROWS(VerifyError, b.max(1.5, static_cast<Value*>(nullptr)),
               "operand: expected at least one Value, got 1.5 and None");
  CHECK_THROWS(VerifyError, b.add(vec, 1),
               "operand: expected a Value or a Python number for a vector<4xf32> operand, got 1");
  CHECK_THROWS(VerifyError, b.mul(2.5, v),
               "operand: expected a Value or a Python number for a ptr<global> operand, got 2.5");
  // Python raises AttributeError reading f.type.elem; C++ lets the rule name it.
  CHECK_THROWS(VerifyError, b.insert(f, 1e16, 0), "vector.insert: expected a vector operand, got f32");
  // a float for an int type stays a float, and the const rule names it
  CHECK_THROWS(VerifyError, b.const_(1.5, S("i32")), "arith.const: expected an integer value for i32, got 1.5");
  CHECK_THROWS(VerifyError, b.const_(300, S("i8")), "arith.const: expected a value in [-128, 127] for i8, got 300");
  CHECK_THROWS(VerifyError, b.const_(1, ptr("lds")), "arith.const: expected a scalar result, got ptr<lds>");
}

ROCKE_TEST(emit) {
  KernelBuilder b("k", "gfx942", {64, 1, 1});
  CHECK_THROWS(VerifyError, b.emit("arith.nop", {}, {}), "op: expected a known op, got \"arith.nop\"");
  CHECK_THROWS(VerifyError, b.emit("gpu.lane_id", {}, {S("f32")}), "gpu.lane_id: expected an i32 result, got f32");
  Op& op = b.emit("gpu.block_id", {}, {S("i32")}, {{"dim", 2}});
  CHECK_EQ(op.name, "gpu.block_id");
  CHECK(op.attrs.at("dim") == AttrValue(2));
  // A failed op is not appended.
  CHECK_EQ(names(b.finish()->body), "gpu.block_id");
  // An unchecked op is, and finish() verifies it.
  KernelBuilder u("k", "gfx942", {64, 1, 1});
  u.emit("gpu.lane_id", {}, {S("f32")}, {}, 0, false);
  CHECK_THROWS(VerifyError, u.finish(), "gpu.lane_id: expected an i32 result, got f32");
}

ROCKE_TEST(for_range_coerces_lo_hi_step_in_order) {
  KernelBuilder b("k", "gfx942", {64, 1, 1});
  Value* n = b.arg("n", S("i32"));
  Value* iv = nullptr;
  const auto results = b.for_range(5, 9, 2, {}, [&](const Loop& loop) {
    iv = loop.iv;
    b.barrier();
  });
  CHECK(results.empty());
  b.for_range(7, n, 3, {}, [&](const Loop&) {});
  auto k = b.finish();
  // The body had no yield and the loop carries nothing: it gets an empty one.
  CHECK_EQ(
      names(k->body),
      "arith.const arith.const arith.const scf.for gpu.barrier scf.yield arith.const arith.const scf.for scf.yield");
  CHECK(consts(k->body) == (std::vector<AttrValue>{5, 9, 2, 7, 3}));
  const Op& loop = *k->body.ops[3];
  CHECK(loop.operands[0] == k->body.ops[0]->result());
  CHECK(loop.operands[1] == k->body.ops[1]->result());
  CHECK(loop.operands[2] == k->body.ops[2]->result());
  CHECK(k->body.ops[6]->operands[1] == n);
  CHECK(loop.regions[0].args.size() == 1 && loop.regions[0].args[0] == iv && iv->type == S("i32"));
}

ROCKE_TEST(for_range_carries_values) {
  KernelBuilder b("k", "gfx942", {64, 1, 1});
  Value* x = b.arg("x", ptr("global"));
  Value* f = b.load(x, S("f32"));
  Value* i = b.load(x, S("i64"));
  const auto out = b.for_range(0, 8, 1, {f, i}, [&](const Loop& loop) {
    CHECK_EQ(loop.iters.size(), 2u);
    CHECK(loop.iters[1]->type == S("i64"));
    Value* g = b.add(loop.iters[0], f);
    b.yield_({g, loop.iters[1]});
  });
  CHECK_EQ(out.size(), 2u);
  CHECK(out[0]->type == S("f32") && out[1]->type == S("i64"));
  b.store(x, out[0]);
  b.finish();
  // A carried value needs a yield.
  KernelBuilder c("k", "gfx942", {64, 1, 1});
  Value* y = c.arg("y", S("f32"));
  CHECK_THROWS(VerifyError, c.for_range(0, 8, 1, {y}, [&](const Loop&) { c.barrier(); }),
               "scf.for: expected the region to end with b.yield_(1 values), got no yield");
  // The rule runs when the body closes.
  CHECK_THROWS(VerifyError, c.for_range(0, 8, 1, {y}, [&](const Loop& loop) { c.yield_({loop.iv}); }),
               "scf.for: expected the body to yield (f32), got (i32)");
  CHECK_THROWS(VerifyError, c.for_range(y, 8, 1, {}, [&](const Loop&) {}),
               "scf.for: expected i32 bounds and step, got f32, i32, i32");
  // A number needs i32 to coerce to; a vector bound cannot take one.
  CHECK_THROWS(VerifyError, c.for_range(0, 2.5, 1, {}, [&](const Loop&) {}),
               "arith.const: expected an integer value for i32, got 2.5");
}

ROCKE_TEST(if_regions) {
  KernelBuilder b("k", "gfx942", {64, 1, 1});
  Value* x = b.arg("x", ptr("global"));
  Value* f = b.load(x, S("f32"));
  Value* c = b.cmp("gt", f, 0.0);
  // One-armed, no results: finish() adds the empty else arm.
  b.if_(c, {}, [&] { b.store(x, f); });
  const auto r = b.if_(
      c, {S("f32")}, [&] { b.yield_({f}); },
      [&] {
        Value* g = b.neg(f);
        b.yield_({g});
      });
  b.store(x, r[0]);
  auto k = b.finish();
  CHECK_EQ(names(k->body),
           "mem.load arith.const arith.cmp scf.if mem.store scf.yield scf.yield scf.if scf.yield arith.neg scf.yield "
           "mem.store");
  CHECK(k->body.ops[3]->regions[1].ops.size() == 1);

  KernelBuilder e("k", "gfx942", {64, 1, 1});
  Value* y = e.arg("y", S("f32"));
  Value* cond = e.cmp("eq", y, y);
  // The rule runs when the else arm closes.
  CHECK_THROWS(VerifyError,
               e.if_(
                   cond, {S("f32")}, [&] { e.yield_({y}); }, [&] { e.yield_({cond}); }),
               "scf.if: expected the else-region to yield (f32), got (i1)");
  CHECK_THROWS(VerifyError, e.if_(cond, {S("f32")}, [&] { e.barrier(); }),
               "scf.if: expected the region to end with b.yield_(1 values), got no yield");
  CHECK_THROWS(VerifyError, e.if_(y, {}, [&] {}, [&] {}), "scf.if: expected an i1 condition, got f32");
}

ROCKE_TEST(if_with_results_needs_an_else) {
  KernelBuilder b("k", "gfx942", {64, 1, 1});
  Value* y = b.arg("y", S("f32"));
  Value* cond = b.cmp("eq", y, y);
  b.if_(cond, {S("f32")}, [&] { b.yield_({y}); });  // Python checks this at verify, not here
  CHECK_THROWS(VerifyError, b.finish(), "scf.if: expected the else-region to end with scf.yield, got an empty region");
}

ROCKE_TEST(finish_needs_every_region_closed) {
  KernelBuilder b("k", "gfx942", {64, 1, 1});
  CHECK_THROWS(VerifyError, b.for_range(0, 4, 1, {}, [&](const Loop&) { b.finish(); }),
               "kernel @k: expected every for/if closed, got 1 open");
  // The failed body popped its block; the loop stays, with its empty body, as in Python.
  CHECK_THROWS(VerifyError, b.finish(), "scf.for: expected the body to end with scf.yield, got an empty region");
  KernelBuilder bad("9k", "gfx942", {64, 1, 1});
  CHECK_THROWS(VerifyError, bad.finish(),
               "kernel: expected a name of ASCII letters, digits and _ (not first a digit), got \"9k\"");
  KernelBuilder big("k", "gfx942", {64, 32, 1});
  CHECK_THROWS(VerifyError, big.finish(),
               "kernel @k: expected workgroup_size to be [x, y, z] of positive ints with x*y*z <= 1024 on gfx942, got "
               "[64, 32, 1]");
}

ROCKE_TEST(unknown_arch) {
  CHECK_THROWS(rocke::arch::UnknownArchError, KernelBuilder("k", "gfx943", {64, 1, 1}),
               "arch: expected one of gfx1100, gfx1151, gfx1201, gfx1250, gfx90a, gfx942, gfx950, got \"gfx943\". Did "
               "you mean gfx942?");
}

ROCKE_TEST(wide_memory_splits_in_pythons_order) {
  KernelBuilder b("k", "gfx942", {64, 1, 1});
  Value* x = b.arg("x", ptr("global"));
  Value* w = b.load_wide(x, V("f32", 16));
  CHECK(w->type == V("f32", 16));
  auto k = b.finish();
  // builder.load_wide: the low half, then the offset, then the high half, joined.
  CHECK_EQ(
      names(k->body),
      "mem.load arith.const mem.offset mem.load vector.shuffle arith.const mem.offset mem.load arith.const mem.offset "
      "mem.load vector.shuffle vector.shuffle");
  CHECK(consts(k->body) == (std::vector<AttrValue>{16, 32, 16}));
  CHECK(k->body.ops.back()->attrs.at("mask") ==
        AttrValue(AttrList{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));

  KernelBuilder s("k", "gfx942", {64, 1, 1});
  Value* y = s.arg("y", ptr("global"));
  Value* v = s.load_wide(y, V("f16", 32));
  const std::size_t before = 13;  // the load_wide above, as for f32 x 16
  s.store_wide(y, v);
  auto ks = s.finish();
  std::string stores;
  std::vector<AttrValue> masks;
  for (std::size_t i = before; i < ks->body.ops.size(); ++i) {
    const Op& op = *ks->body.ops[i];
    stores += (stores.empty() ? "" : " ") + op.name;
    if (op.name == "vector.shuffle") masks.push_back(op.attrs.at("mask"));
  }
  // builder.store_wide: shuffle the low half and store it (recursively), then
  // the offset, then shuffle the high half and store it.
  CHECK_EQ(
      stores,
      "vector.shuffle vector.shuffle mem.store arith.const mem.offset vector.shuffle mem.store arith.const mem.offset "
      "vector.shuffle vector.shuffle mem.store arith.const mem.offset vector.shuffle mem.store");
  CHECK(masks[0] == AttrValue(AttrList{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}));
  CHECK(masks[1] == AttrValue(AttrList{0, 1, 2, 3, 4, 5, 6, 7}));
  CHECK(masks[2] == AttrValue(AttrList{8, 9, 10, 11, 12, 13, 14, 15}));
  CHECK(masks[3] == AttrValue(AttrList{16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}));
  // A small value is one store; a pointer type goes to load, whose rule names it.
  KernelBuilder t("k", "gfx942", {64, 1, 1});
  Value* z = t.arg("z", ptr("global"));
  t.store_wide(z, t.load_wide(z, S("f32")));
  CHECK_EQ(names(t.finish()->body), "mem.load mem.store");
  KernelBuilder p("k", "gfx942", {64, 1, 1});
  Value* q = p.arg("q", ptr("global"));
  CHECK_THROWS(VerifyError, p.load_wide(q, ptr("global")),
               "mem.load: expected a numeric, non-i1 access type, got ptr<global>");
}

int main() { return rocke::testing::run_all(); }
