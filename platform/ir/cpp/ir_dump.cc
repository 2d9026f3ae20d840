// Builds kernels with the C++ builder and prints, as JSON for
// ir_parity_test:
//   {"errors": {case: [facts, message]}, "programs": {case: [line, ...]}}
// errors: bad constructions and the facts and message of the error each
// raises (VerifyError, BadTypeError, UnknownArchError); programs: good
// kernels, one line per op in program order ("  " per region depth):
//   %3, %4 = name(%x, %1) {key=VALUE, ...} (VALUE as the .rk text spells it) : type, type
// with values numbered as they are defined and arguments by name, so the
// op order, constants, attributes and types can be compared with Python's
// without a printer. ir_parity_test.py builds the same cases in Python.
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/attrs.h"
#include "platform/ir/cpp/builder.h"

using namespace rocke::ir;
using rocke::json::quote;

namespace {

const Type* S(const char* name) { return scalar(name); }
const Type* V(const char* name, int n) { return vector(scalar(name), n); }

// -- programs -------------------------------------------------------------------

struct Lines {
  std::map<const Value*, std::string> names;
  std::vector<std::string> out;
  int next = 0;

  std::string define(const Value* v) {
    const std::string name = "%" + std::to_string(next++);
    names[v] = name;
    return name;
  }

  void block(const Block& b, int depth) {
    const std::string indent(2 * static_cast<std::size_t>(depth), ' ');
    if (!b.args.empty()) {
      std::string args;
      for (const Value* a : b.args) args += (args.empty() ? "" : ", ") + define(a) + ": " + a->type->str();
      out.push_back(indent + "^(" + args + ")");
    }
    for (const auto& op : b.ops) {
      std::string line = indent, operands, attrs, types;
      for (const Value* r : op->results) {
        line += (line.size() > indent.size() ? ", " : "") + define(r);
        types += (types.empty() ? "" : ", ") + r->type->str();
      }
      if (!op->results.empty()) line += " = ";
      for (const Value* v : op->operands) operands += (operands.empty() ? "" : ", ") + names.at(v);
      for (const auto& [key, value] : op->attrs) attrs += (attrs.empty() ? "" : ", ") + key + "=" + attr_text(value);
      line += op->name + "(" + operands + ")";
      if (!attrs.empty()) line += " {" + attrs + "}";
      if (!types.empty()) line += " : " + types;
      out.push_back(line);
      for (const Block& r : op->regions) block(r, depth + 1);
    }
  }
};

std::vector<std::string> lines(const Kernel& k) {
  Lines l;
  for (const Value* a : k.args) l.names[a] = "%" + a->name;
  l.block(k.body, 0);
  return l.out;
}

std::unique_ptr<Kernel> every_op() {
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
  i = b.min(i, n);
  i = b.max(-1, i);
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
  f = b.select(c, f, 0.1);
  f = b.add(f, 3);
  Value* h = b.convert(f, S("f16"));
  Value* bits = b.bitcast(h, S("i16"));
  Value* v = b.build({h, h, h, h});
  Value* e = b.extract(v, 3);
  v = b.insert(v, e, 0);
  v = b.insert(v, 1e-5, 1);
  v = b.shuffle(v, v, {0, 1, 4, 5});
  b.barrier();
  Value* moved = b.bpermute(0, f);
  Value* lds = b.lds_alloc(1000, 8);
  Value* q = b.offset(lds, 16);
  b.store(q, moved);
  Value* wide = b.load_wide(x, V("f32", 8));
  b.store_wide(x, wide);
  b.atomic_add(x, f);
  Value* rsrc = b.buffer_rsrc(x, 4096);
  Value* bl = b.buffer_load(rsrc, 0, S("i16"));
  Value* mixed = b.xor_(bl, bits);
  b.buffer_store(rsrc, 2, mixed);
  Value* fa = b.load(x, V("f16", 4));
  Value* acc = b.load(x, V("f32", 4));
  Value* d = b.mma("mma_16x16x16_f16_f32", fa, fa, acc);
  const std::vector<Value*> sums = b.for_range(0, n, 1, {d}, [&](const Loop& loop) {
    Value* s = b.add(loop.iters[0], loop.iters[0]);
    b.yield_({s});
  });
  const std::vector<Value*> picked = b.if_(c, {V("f32", 4)}, [&] { b.yield_({sums[0]}); }, [&] { b.yield_({d}); });
  b.store(x, picked[0]);
  b.if_(c, {}, [&] { b.store(x, f); });
  b.for_range(n, 64, 4, {}, [&](const Loop& loop) {
    Value* o = b.offset(x, loop.iv);
    b.store(o, loop.iv);
  });
  b.for_range(2, 64, 4, {}, [&](const Loop&) { b.barrier(); });
  return b.finish();
}

std::unique_ptr<Kernel> wide() {
  KernelBuilder b("wide", "gfx1100", {32, 2, 1}, 32, 4);
  Value* x = b.arg("x", ptr("global"));
  Value* y = b.lds_alloc(64);
  Value* w = b.load_wide(x, V("f16", 32));
  b.store_wide(x, w);
  Value* v = b.load_wide(y, V("i64", 8));
  b.store_wide(y, v);
  return b.finish();
}

// -- errors ---------------------------------------------------------------------

KernelBuilder gfx942() { return KernelBuilder("k", "gfx942", {64, 1, 1}); }

using Case = std::pair<const char*, std::function<void()>>;

std::vector<Case> errors() {
  return {
      {"add(1, 2)", [] { gfx942().add(1, 2); }},
      {"max(1.5, None)", [] { gfx942().max(1.5, static_cast<Value*>(nullptr)); }},
      {"add(vector, 1)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         b.add(b.build({f, f}), 1);
       }},
      {"mul(2.5, ptr)",
       [] {
         auto b = gfx942();
         b.mul(2.5, b.arg("p", ptr("global")));
       }},
      {"const(1.5, i32)", [] { gfx942().const_(1.5, S("i32")); }},
      {"const(200, i8)", [] { gfx942().const_(200, S("i8")); }},
      {"const(-129, i8)", [] { gfx942().const_(-129, S("i8")); }},
      {"const(2, i1)", [] { gfx942().const_(2, S("i1")); }},
      {"const(1, lds)", [] { gfx942().const_(1, ptr("lds")); }},
      {"emit(arith.nop)", [] { gfx942().emit("arith.nop", {}, {}); }},
      {"emit(gpu.lane_id -> f32)", [] { gfx942().emit("gpu.lane_id", {}, {S("f32")}); }},
      {"emit(gpu.block_id, no dim)", [] { gfx942().emit("gpu.block_id", {}, {S("i32")}); }},
      {"emit(gpu.lane_id, extra attrs)", [] { gfx942().emit("gpu.lane_id", {}, {S("i32")}, {{"x", 1}, {"a", 2.5}}); }},
      {"thread_id(3)", [] { gfx942().thread_id(3); }},
      {"cmp(lq)",
       [] {
         auto b = gfx942();
         Value* n = b.arg("n", S("i32"));
         b.cmp("lq", n, 0);
       }},
      {"cmp(i32, f32)",
       [] {
         auto b = gfx942();
         Value* n = b.arg("n", S("i32"));
         Value* f = b.arg("f", S("f32"));
         b.cmp("eq", n, f);
       }},
      {"select(i32 cond)",
       [] {
         auto b = gfx942();
         Value* n = b.arg("n", S("i32"));
         b.select(n, n, 1);
       }},
      {"add(i1)",
       [] {
         auto b = gfx942();
         Value* n = b.arg("n", S("i32"));
         Value* c = b.cmp("eq", n, n);
         b.add(c, c);
       }},
      {"and(f32)",
       [] {
         auto b = gfx942();
         b.and_(b.arg("f", S("f32")), 1);
       }},
      {"add(fp8)",
       [] {
         auto b = gfx942();
         Value* x = b.arg("x", ptr("global"));
         Value* e = b.load(x, S("f8e4m3"));
         b.add(e, e);
       }},
      {"convert(ptr)",
       [] {
         auto b = gfx942();
         b.convert(b.arg("p", ptr("global")), S("i64"));
       }},
      {"convert(lanes)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         b.convert(b.build({f, f, f, f}), V("f16", 2));
       }},
      {"bitcast(f32 -> f16)",
       [] {
         auto b = gfx942();
         b.bitcast(b.arg("f", S("f32")), S("f16"));
       }},
      {"bitcast(i1)",
       [] {
         auto b = gfx942();
         Value* n = b.arg("n", S("i32"));
         b.bitcast(b.cmp("eq", n, n), S("i8"));
       }},
      {"exp(i32)",
       [] {
         auto b = gfx942();
         b.exp(b.arg("n", S("i32")));
       }},
      {"fma(bf16)",
       [] {
         auto b = gfx942();
         Value* h = b.arg("h", S("bf16"));
         b.fma(h, h, h);
       }},
      {"readfirstlane(f16)",
       [] {
         auto b = gfx942();
         b.readfirstlane(b.arg("h", S("f16")));
       }},
      {"build(f32, i32)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         Value* n = b.arg("n", S("i32"));
         b.build({f, n});
       }},
      {"build(one)",
       [] {
         auto b = gfx942();
         b.build({b.arg("f", S("f32"))});
       }},
      {"extract(4)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         b.extract(b.build({f, f, f, f}), 4);
       }},
      {"insert(i32 into f32s)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         Value* n = b.arg("n", S("i32"));
         b.insert(b.build({f, f}), n, 1);
       }},
      {"insert(-1)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         b.insert(b.build({f, f}), 2.0, -1);
       }},
      {"shuffle([0, 8])",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         Value* v = b.build({f, f, f, f});
         b.shuffle(v, v, {0, 8});
       }},
      {"shuffle([0])",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         Value* v = b.build({f, f, f, f});
         b.shuffle(v, v, {0});
       }},
      {"shuffle(mixed)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         Value* v = b.build({f, f, f, f});
         Value* w = b.build({f, f});
         b.shuffle(v, w, {0, 1});
       }},
      {"bpermute(f16)",
       [] {
         auto b = gfx942();
         b.bpermute(4, b.arg("h", S("f16")));
       }},
      {"bpermute(i64 address)",
       [] {
         auto b = gfx942();
         Value* a = b.arg("a", S("i64"));
         b.bpermute(a, b.arg("f", S("f32")));
       }},
      {"lds_alloc(0)", [] { gfx942().lds_alloc(0); }},
      {"lds_alloc(64, 2)", [] { gfx942().lds_alloc(64, 2); }},
      {"offset(buffer)",
       [] {
         auto b = gfx942();
         b.offset(b.buffer_rsrc(b.arg("x", ptr("global")), 64), 4);
       }},
      {"offset(2.5)",
       [] {
         auto b = gfx942();
         b.offset(b.arg("x", ptr("global")), 2.5);
       }},
      {"load(i1)",
       [] {
         auto b = gfx942();
         b.load(b.arg("x", ptr("global")), S("i1"));
       }},
      {"load(vector<3xf32>)",
       [] {
         auto b = gfx942();
         b.load(b.arg("x", ptr("global")), V("f32", 3));
       }},
      {"load_wide(vector<3xi64>)",
       [] {
         auto b = gfx942();
         b.load_wide(b.arg("x", ptr("global")), V("i64", 3));
       }},
      {"store(constant)",
       [] {
         auto b = gfx942();
         Value* c = b.arg("c", ptr("constant"));
         b.store(c, b.arg("f", S("f32")));
       }},
      {"atomic_add(f16)",
       [] {
         auto b = gfx942();
         Value* x = b.arg("x", ptr("global"));
         b.atomic_add(x, b.arg("h", S("f16")));
       }},
      {"buffer_rsrc(lds)",
       [] {
         auto b = gfx942();
         b.buffer_rsrc(b.lds_alloc(64), 64);
       }},
      {"buffer_load(12 bytes)",
       [] {
         auto b = gfx942();
         b.buffer_load(b.buffer_rsrc(b.arg("x", ptr("global")), 64), 0, V("f32", 3));
       }},
      {"buffer_store(global)",
       [] {
         auto b = gfx942();
         Value* x = b.arg("x", ptr("global"));
         b.buffer_store(x, 0, b.arg("f", S("f32")));
       }},
      {"mma(bad id)",
       [] {
         auto b = gfx942();
         Value* x = b.arg("x", ptr("global"));
         Value* a = b.load(x, V("f16", 4));
         Value* c = b.load(x, V("f32", 4));
         b.mma("mma_16x16x16_f16_f16", a, a, c);
       }},
      {"mma(f32 A)",
       [] {
         auto b = gfx942();
         Value* x = b.arg("x", ptr("global"));
         Value* c = b.load(x, V("f32", 4));
         b.mma("mma_16x16x16_f16_f32", c, c, c);
       }},
      {"mma(fragments on gfx942)",
       [] {
         auto b = gfx942();
         Value* x = b.arg("x", ptr("global"));
         Value* a = b.load(x, V("f16", 8));
         Value* c = b.load(x, V("f32", 4));
         b.mma("mma_16x16x16_f16_f32", a, a, c);
         b.finish();
       }},
      {"mma(not on gfx1100)",
       [] {
         KernelBuilder b("k", "gfx1100", {64, 1, 1});
         Value* x = b.arg("x", ptr("global"));
         Value* a = b.load(x, V("f16", 4));
         Value* c = b.load(x, V("f32", 4));
         b.mma("mma_32x32x8_f16_f32", a, a, c);
         b.finish();
       }},
      {"mma(wave64 on gfx1100)",
       [] {
         KernelBuilder b("k", "gfx1100", {64, 1, 1}, 64);
         Value* x = b.arg("x", ptr("global"));
         Value* a = b.load_wide(x, V("f16", 16));
         Value* c = b.load_wide(x, V("f32", 8));
         b.mma("mma_16x16x16_f16_f32", a, a, c);
         b.finish();
       }},
      {"for_range(carried, no yield)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         b.for_range(0, 8, 1, {f}, [&](const Loop&) { b.barrier(); });
       }},
      {"for_range(yields i32 for f32)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         b.for_range(0, 8, 1, {f}, [&](const Loop& loop) { b.yield_({loop.iv}); });
       }},
      {"for_range(f32 lo)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         b.for_range(f, 8, 1, {}, [&](const Loop&) {});
       }},
      {"for_range(hi 2.5)",
       [] {
         auto b = gfx942();
         b.for_range(0, 2.5, 1, {}, [&](const Loop&) {});
       }},
      {"if_(f32 cond)",
       [] {
         auto b = gfx942();
         b.if_(b.arg("f", S("f32")), {}, [] {}, [] {});
       }},
      {"if_(else yields i1)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         Value* c = b.cmp("eq", f, f);
         b.if_(c, {S("f32")}, [&] { b.yield_({f}); }, [&] { b.yield_({c}); });
       }},
      {"if_(then without yield)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         Value* c = b.cmp("eq", f, f);
         b.if_(c, {S("f32")}, [&] { b.barrier(); }, [&] { b.yield_({f}); });
       }},
      {"if_(results, no else)",
       [] {
         auto b = gfx942();
         Value* f = b.arg("f", S("f32"));
         Value* c = b.cmp("eq", f, f);
         b.if_(c, {S("f32")}, [&] { b.yield_({f}); });
         b.finish();
       }},
      {"finish() inside for_range",
       [] {
         auto b = gfx942();
         b.for_range(0, 4, 1, {}, [&](const Loop&) { b.finish(); });
       }},
      {"yield_() at top level",
       [] {
         auto b = gfx942();
         b.yield_({});
         b.finish();
       }},
      {"lds_alloc in a loop",
       [] {
         auto b = gfx942();
         b.for_range(0, 4, 1, {}, [&](const Loop&) { b.lds_alloc(64); });
         b.finish();
       }},
      {"lds total",
       [] {
         auto b = gfx942();
         b.lds_alloc(40000, 4);
         b.lds_alloc(30001);
         b.finish();
       }},
      {"value of another kernel",
       [] {
         auto other = gfx942();
         Value* y = other.arg("y", S("i32"));
         auto b = gfx942();
         b.neg(y);
         b.finish();
       }},
      {"nesting 101",
       [] {
         auto b = gfx942();
         Value* n = b.arg("n", S("i32"));
         std::function<void(int)> nest = [&](int depth) {
           if (depth == 0) return;
           b.for_range(0, n, 1, {}, [&](const Loop&) { nest(depth - 1); });
         };
         nest(100);
         b.finish();
       }},
      {"kernel name 9k", [] { KernelBuilder("9k", "gfx942", {64, 1, 1}).finish(); }},
      {"workgroup [64, 32, 1]", [] { KernelBuilder("k", "gfx942", {64, 32, 1}).finish(); }},
      {"wave_size 32 on gfx942", [] { KernelBuilder("k", "gfx942", {64, 1, 1}, 32).finish(); }},
      {"waves_per_eu 9 on gfx942", [] { KernelBuilder("k", "gfx942", {64, 1, 1}, std::nullopt, 9).finish(); }},
      {"arch gfx943", [] { KernelBuilder("k", "gfx943", {64, 1, 1}); }},
      {"argument vector<4xf32>",
       [] {
         auto b = gfx942();
         b.arg("v", V("f32", 4));
         b.finish();
       }},
      {"argument ptr<buffer>",
       [] {
         auto b = gfx942();
         b.arg("r", ptr("buffer"));
         b.finish();
       }},
      {"argument f8e5m2",
       [] {
         auto b = gfx942();
         b.arg("e", S("f8e5m2"));
         b.finish();
       }},
      {"arguments x, x",
       [] {
         auto b = gfx942();
         b.arg("x", S("i32"));
         b.arg("x", S("f32"));
         b.finish();
       }},
      {"argument it's",
       [] {
         auto b = gfx942();
         b.arg("it's", S("i32"));
         b.finish();
       }},
  };
}

}  // namespace

int main() {
  std::string errors_, programs_;
  for (const auto& [name, body] : errors()) {
    rocke::json::Value refusal;  // [facts, message], null if none
    try {
      body();
    } catch (const rocke::errors::FieldError& e) {  // VerifyError, BadTypeError, UnknownArchError
      refusal = rocke::json::Array{e.facts(), e.what()};
    }
    errors_ += (errors_.empty() ? "" : ", ") + quote(name) + ": " + rocke::json::canonical(refusal);
  }
  const std::pair<const char*, std::function<std::unique_ptr<Kernel>()>> programs[] = {{"every_op", every_op},
                                                                                       {"wide", wide}};
  for (const auto& [name, build] : programs) {
    std::string items;
    for (const std::string& line : lines(*build())) items += (items.empty() ? "" : ", ") + quote(line);
    programs_ += (programs_.empty() ? "" : ", ") + quote(name) + ": [" + items + "]";
  }
  std::cout << "{\"errors\": {" << errors_ << "}, \"programs\": {" << programs_ << "}}\n";
  return 0;
}
