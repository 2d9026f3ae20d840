// Every op rule of platform/ir/ops.py and op_schema.check, each failing with
// Python's message. The expected strings are read off the Python source (the
// f-strings of ops.py and op_schema.py); ir_parity_test runs Python itself.
#include <memory>
#include <string>
#include <vector>

#include "platform/cpp/testing/check.h"
#include "platform/ir/cpp/core.h"
#include "platform/ir/cpp/verifier.h"

using namespace rocke::ir;

namespace {

const Type* S(const char* name) { return scalar(name); }
const Type* V(const char* name, int n) { return vector(scalar(name), n); }
const Type* P(const char* space) { return ptr(space); }

// Values live in one kernel for the whole test binary.
Kernel& pool() {
  static Kernel k;
  return k;
}

Value* v(const Type* t) { return pool().new_value(t); }

struct OpSpec {
  std::string name;
  std::vector<const Type*> operands;
  std::vector<const Type*> results;
  // NOLINTNEXTLINE(readability-redundant-member-init): rows may then omit it (-Wmissing-field-initializers)
  Attrs attrs = {};
  int regions = 0;
};

std::unique_ptr<Op> make(const OpSpec& s) {
  auto op = std::make_unique<Op>();
  op->name = s.name;
  for (const Type* t : s.operands) op->operands.push_back(v(t));
  for (const Type* t : s.results) op->results.push_back(v(t));
  op->attrs = s.attrs;
  op->regions.resize(s.regions);
  return op;
}

std::unique_ptr<Op> yield(std::vector<const Type*> types) { return make({"scf.yield", std::move(types), {}}); }

#define BAD(spec, message) CHECK_THROWS(VerifyError, check_op(*make(spec)), message)
#define GOOD(spec) check_op(*make(spec))

}  // namespace

ROCKE_TEST(known_ops_only) { BAD((OpSpec{"arith.foo", {}, {}}), "op: expected a known op, got \"arith.foo\""); }

ROCKE_TEST(attribute_keys) {
  BAD((OpSpec{"gpu.lane_id", {}, {S("i32")}, {{"foo", 1}, {"bar", 2}}}),
      "gpu.lane_id: expected attributes among (), got bar, foo");
  BAD((OpSpec{"mem.lds_alloc", {}, {P("lds")}, {{"bytes", 4}, {"align", 4}, {"x", 1}}}),
      "mem.lds_alloc: expected attributes among (align, bytes), got x");
}

ROCKE_TEST(fp8_is_storage_only) {
  const std::string ops =
      "arith.bitcast, arith.convert, buffer.load, buffer.store, matrix.mma, mem.load, mem.store, vector.build, "
      "vector.extract, vector.insert, vector.shuffle";
  BAD((OpSpec{"arith.add", {S("f8e4m3"), S("f8e4m3")}, {S("f8e4m3")}}),
      "arith.add: expected no fp8 operand (fp8 is storage-only: " + ops +
          " take it), got operand of type f8e4m3; arith.convert it to f16 or f32 first, and back to fp8 to store");
  BAD((OpSpec{"gpu.lane_id", {}, {V("f8e5m2", 4)}}),
      "gpu.lane_id: expected no fp8 result (fp8 is storage-only: " + ops +
          " take it), got result of type vector<4xf8e5m2>; arith.convert it to f16 or f32 first, and back to fp8 to "
          "store");
  GOOD((OpSpec{"arith.convert", {S("f8e4m3")}, {S("f32")}}));
}

ROCKE_TEST(schema_counts) {
  BAD((OpSpec{"arith.add", {S("i32")}, {S("i32")}}), "arith.add: expected 2 operand(s), got 1");
  BAD((OpSpec{"scf.for", {S("i32"), S("i32")}, {}, {}, 1}), "scf.for: expected at least 3 operand(s), got 2");
  BAD((OpSpec{"gpu.barrier", {}, {S("i32")}}), "gpu.barrier: expected 0 result(s), got 1");
  BAD((OpSpec{"scf.if", {S("i1")}, {}, {}, 1}), "scf.if: expected 2 region(s), got 1");
}

ROCKE_TEST(schema_attributes) {
  BAD((OpSpec{"gpu.thread_id", {}, {S("i32")}}), "gpu.thread_id: expected attribute dim, got attributes []");
  BAD((OpSpec{"mem.lds_alloc", {}, {P("lds")}, {{"bytes", 4}}}),
      "mem.lds_alloc: expected attribute align, got attributes [\"bytes\"]");
  // kinds
  BAD((OpSpec{"arith.const", {}, {S("i32")}, {{"value", "x"}}}),
      "arith.const: expected value to be an int or a float, got \"x\"");
  BAD((OpSpec{"arith.const", {}, {S("i32")}, {{"value", true}}}),
      "arith.const: expected value to be an int or a float, got true");
  BAD((OpSpec{"vector.extract", {V("f32", 4)}, {S("f32")}, {{"index", 1.0}}}),
      "vector.extract: expected index to be an int, got 1.0");
  BAD((OpSpec{"vector.shuffle", {V("f32", 4), V("f32", 4)}, {V("f32", 2)}, {{"mask", AttrList{1, true}}}}),
      "vector.shuffle: expected mask to be a list of ints, got [1, true]");
  BAD((OpSpec{"matrix.mma", {V("f16", 4), V("f16", 4), V("f32", 4)}, {V("f32", 4)}, {{"op", 3}}}),
      "matrix.mma: expected op to be a str, got 3");
  // allowed values
  BAD((OpSpec{"arith.cmp", {S("i32"), S("i32")}, {S("i1")}, {{"pred", "lq"}}}),
      "arith.cmp: expected pred to be one of eq, ne, lt, le, gt, ge, got \"lq\"");
  BAD((OpSpec{"gpu.thread_id", {}, {S("i32")}, {{"dim", 3}}}), "gpu.thread_id: expected dim to be 0, 1 or 2, got 3");
  BAD((OpSpec{"mem.lds_alloc", {}, {P("lds")}, {{"bytes", 4}, {"align", 2}}}),
      "mem.lds_alloc: expected align to be 4, 8 or 16, got 2");
  // min
  BAD((OpSpec{"mem.lds_alloc", {}, {P("lds")}, {{"bytes", 0}, {"align", 4}}}),
      "mem.lds_alloc: expected bytes to be an int of at least 1, got 0");
  BAD((OpSpec{"mem.lds_alloc", {}, {P("lds")}, {{"bytes", "4"}, {"align", 4}}}),
      "mem.lds_alloc: expected bytes to be an int of at least 1, got \"4\"");
}

ROCKE_TEST(const_rule) {
  BAD((OpSpec{"arith.const", {}, {V("i32", 2)}, {{"value", 1}}}),
      "arith.const: expected a scalar result, got vector<2xi32>");
  BAD((OpSpec{"arith.const", {}, {S("i32")}, {{"value", 1.5}}}),
      "arith.const: expected an integer value for i32, got 1.5");
  BAD((OpSpec{"arith.const", {}, {S("i8")}, {{"value", 200}}}),
      "arith.const: expected a value in [-128, 127] for i8, got 200; as i8 it is spelled -56");
  BAD((OpSpec{"arith.const", {}, {S("i8")}, {{"value", 300}}}),
      "arith.const: expected a value in [-128, 127] for i8, got 300");
  BAD((OpSpec{"arith.const", {}, {S("i1")}, {{"value", 2}}}), "arith.const: expected a value in [0, 1] for i1, got 2");
  BAD((OpSpec{"arith.const", {}, {S("f32")}, {{"value", 1}}}), "arith.const: expected a float value for f32, got 1");
  GOOD((OpSpec{"arith.const", {}, {S("i64")}, {{"value", INT64_MIN}}}));
  GOOD((OpSpec{"arith.const", {}, {S("bf16")}, {{"value", -0.5}}}));
}

ROCKE_TEST(arith_rules) {
  BAD((OpSpec{"arith.add", {S("i32"), S("f32")}, {S("i32")}}),
      "arith.add: expected operands and result of one type, got i32, f32, i32");
  BAD((OpSpec{"arith.max", {S("i1"), S("i1")}, {S("i1")}}), "arith.max: expected int or float operands, got i1");
  BAD((OpSpec{"arith.mul", {P("global"), P("global")}, {P("global")}}),
      "arith.mul: expected int or float operands, got ptr<global>");
  BAD((OpSpec{"arith.and", {S("f32"), S("f32")}, {S("f32")}}), "arith.and: expected integer operands, got f32");
  BAD((OpSpec{"arith.shl", {S("i32"), S("i32")}, {S("i64")}}),
      "arith.shl: expected operands and result of one type, got i32, i32, i64");
  BAD((OpSpec{"arith.neg", {P("global")}, {P("global")}}), "arith.neg: expected a numeric operand, got ptr<global>");
  BAD((OpSpec{"arith.neg", {S("i32")}, {S("f32")}}),
      "arith.neg: expected operand and result of one type, got i32, f32");
  BAD((OpSpec{"arith.cmp", {S("i32"), S("f32")}, {S("i1")}, {{"pred", "eq"}}}),
      "arith.cmp: expected operands of one type, got i32, f32");
  BAD((OpSpec{"arith.cmp", {P("lds"), P("lds")}, {S("i1")}, {{"pred", "eq"}}}),
      "arith.cmp: expected numeric operands, got ptr<lds>");
  BAD((OpSpec{"arith.cmp", {V("f32", 4), V("f32", 4)}, {V("i32", 4)}, {{"pred", "eq"}}}),
      "arith.cmp: expected result vector<4xi1>, got vector<4xi32>");
  BAD((OpSpec{"arith.select", {S("i32"), S("f32"), S("f32")}, {S("f32")}}),
      "arith.select: expected an i1 condition, got i32");
  BAD((OpSpec{"arith.select", {S("i1"), S("f32"), S("i32")}, {S("f32")}}),
      "arith.select: expected both choices and the result of one type, got f32, i32, f32");
  BAD((OpSpec{"arith.convert", {P("global")}, {S("i64")}}),
      "arith.convert: expected numeric types, got ptr<global> -> i64");
  BAD((OpSpec{"arith.convert", {V("f32", 4)}, {V("f16", 2)}}),
      "arith.convert: expected the same lane count as vector<4xf32>, got vector<2xf16>");
  BAD((OpSpec{"arith.bitcast", {S("f32")}, {P("global")}}),
      "arith.bitcast: expected numeric types, got f32 -> ptr<global>");
  BAD((OpSpec{"arith.bitcast", {S("i1")}, {S("i8")}}),
      "arith.bitcast: expected no i1 operand or result (use arith.convert), got i1 -> i8");
  BAD((OpSpec{"arith.bitcast", {S("f32")}, {S("f16")}}), "arith.bitcast: expected a type of 4 bytes, got f16");
}

ROCKE_TEST(math_rules) {
  BAD((OpSpec{"math.exp", {S("i32")}, {S("i32")}}), "math.exp: expected f32 or f16, got i32");
  BAD((OpSpec{"math.rsqrt", {S("f32")}, {S("f16")}}),
      "math.rsqrt: expected operand and result of one type, got f32, f16");
  BAD((OpSpec{"math.fma", {V("bf16", 2), V("bf16", 2), V("bf16", 2)}, {V("bf16", 2)}}),
      "math.fma: expected f32 or f16 (or vectors of them), got vector<2xbf16>");
  BAD((OpSpec{"math.fma", {S("f32"), S("f32"), S("f16")}, {S("f32")}}),
      "math.fma: expected operands and result of one type, got f32, f32, f16, f32");
}

ROCKE_TEST(vector_rules) {
  BAD((OpSpec{"vector.build", {S("f32"), S("f32")}, {S("f32")}}), "vector.build: expected a vector result, got f32");
  BAD((OpSpec{"vector.build", {S("f32"), S("f32"), S("f32")}, {V("f32", 4)}}),
      "vector.build: expected 4 elements, got 3");
  BAD((OpSpec{"vector.build", {S("f32"), S("i32")}, {V("f32", 2)}}),
      "vector.build: expected f32 elements, got [\"f32\",\"i32\"]");
  BAD((OpSpec{"vector.extract", {S("f32")}, {S("f32")}, {{"index", 0}}}),
      "vector.extract: expected a vector operand, got f32");
  BAD((OpSpec{"vector.extract", {V("f32", 4)}, {S("f32")}, {{"index", 4}}}),
      "vector.extract: expected index to be an index in [0, 4), got 4");
  BAD((OpSpec{"vector.extract", {V("f32", 4)}, {S("i32")}, {{"index", 0}}}),
      "vector.extract: expected result f32, got i32");
  BAD((OpSpec{"vector.insert", {S("f32"), S("f32")}, {S("f32")}, {{"index", 0}}}),
      "vector.insert: expected a vector operand, got f32");
  BAD((OpSpec{"vector.insert", {V("f32", 4), S("f32")}, {V("f32", 4)}, {{"index", -1}}}),
      "vector.insert: expected index to be an index in [0, 4), got -1");
  BAD((OpSpec{"vector.insert", {V("f32", 4), S("i32")}, {V("f32", 4)}, {{"index", 0}}}),
      "vector.insert: expected a f32 element and result vector<4xf32>, got i32, vector<4xf32>");
  BAD((OpSpec{"vector.shuffle", {V("f32", 4), V("f32", 2)}, {V("f32", 2)}, {{"mask", AttrList{0, 1}}}}),
      "vector.shuffle: expected operands of one type, got vector<4xf32>, vector<2xf32>");
  BAD((OpSpec{"vector.shuffle", {S("f32"), S("f32")}, {V("f32", 2)}, {{"mask", AttrList{0, 1}}}}),
      "vector.shuffle: expected vector operands, got f32");
  BAD((OpSpec{"vector.shuffle", {V("f32", 4), V("f32", 4)}, {V("f32", 2)}, {{"mask", AttrList{0}}}}),
      "vector.shuffle: expected mask to be a list of 2 to 64 indices in [0, 8), got [0]");
  BAD((OpSpec{"vector.shuffle", {V("f32", 4), V("f32", 4)}, {V("f32", 2)}, {{"mask", AttrList{0, 8}}}}),
      "vector.shuffle: expected mask to be a list of 2 to 64 indices in [0, 8), got [0, 8]");
  BAD((OpSpec{"vector.shuffle", {V("f32", 4), V("f32", 4)}, {V("f32", 4)}, {{"mask", AttrList{0, 7}}}}),
      "vector.shuffle: expected result vector<2xf32>, got vector<4xf32>");
}

ROCKE_TEST(gpu_and_lane_rules) {
  BAD((OpSpec{"gpu.lane_id", {}, {S("i64")}}), "gpu.lane_id: expected an i32 result, got i64");
  BAD((OpSpec{"gpu.grid_dim", {}, {S("f32")}, {{"dim", 0}}}), "gpu.grid_dim: expected an i32 result, got f32");
  BAD((OpSpec{"lane.readfirstlane", {S("f16")}, {S("f16")}}), "lane.readfirstlane: expected i32 or f32, got f16");
  BAD((OpSpec{"lane.readfirstlane", {S("i32")}, {S("f32")}}),
      "lane.readfirstlane: expected operand and result of one type, got i32, f32");
  BAD((OpSpec{"lane.bpermute", {S("i64"), S("f32")}, {S("f32")}}),
      "lane.bpermute: expected an i32 byte address, got i64");
  BAD((OpSpec{"lane.bpermute", {S("i32"), S("f16")}, {S("f16")}}),
      "lane.bpermute: expected an i32 or f32 value and result, got f16, f16");
  GOOD((OpSpec{"gpu.barrier", {}, {}}));
}

ROCKE_TEST(memory_rules) {
  BAD((OpSpec{"mem.load", {P("buffer")}, {S("f32")}}),
      "mem.load: expected a pointer to global or lds or constant or private, got ptr<buffer>");
  BAD((OpSpec{"mem.load", {S("i64")}, {S("f32")}}),
      "mem.load: expected a pointer to global or lds or constant or private, got i64");
  BAD((OpSpec{"mem.load", {P("global")}, {S("i1")}}), "mem.load: expected a numeric, non-i1 access type, got i1");
  BAD((OpSpec{"mem.load", {P("global")}, {P("global")}}),
      "mem.load: expected a numeric, non-i1 access type, got ptr<global>");
  BAD((OpSpec{"mem.load", {P("global")}, {V("f32", 3)}}),
      "mem.load: expected an access of 1, 2, 4, 8, 16 bytes, got vector<3xf32> (12 bytes)");
  BAD((OpSpec{"mem.store", {P("constant"), S("f32")}, {}}),
      "mem.store: expected a pointer to global or lds or private, got ptr<constant>");
  BAD((OpSpec{"mem.lds_alloc", {}, {P("global")}, {{"bytes", 4}, {"align", 4}}}),
      "mem.lds_alloc: expected a ptr<lds> result, got ptr<global>");
  BAD((OpSpec{"mem.load_transpose", {P("global")}, {V("f16", 4)}}),
      "mem.load_transpose: expected a ptr<lds> operand, got ptr<global>");
  BAD((OpSpec{"mem.load_transpose", {P("lds")}, {V("f16", 8)}}),
      "mem.load_transpose: expected a result of type vector<4xf16>, vector<4xbf16>, vector<4xi16>, got vector<8xf16>");
  GOOD((OpSpec{"mem.load_transpose", {P("lds")}, {V("bf16", 4)}}));
  BAD((OpSpec{"mem.load_to_lds", {P("lds"), P("lds")}, {}}),
      "mem.load_to_lds: expected a ptr<global> source, got ptr<lds>");
  BAD((OpSpec{"mem.load_to_lds", {P("global"), P("global")}, {}}),
      "mem.load_to_lds: expected a ptr<lds> destination, got ptr<global>");
  GOOD((OpSpec{"mem.load_to_lds", {P("global"), P("lds")}, {}}));
  BAD((OpSpec{"buffer.load_to_lds", {P("global"), S("i32"), S("i32"), P("lds")}, {}}),
      "buffer.load_to_lds: expected a ptr<buffer> source, got ptr<global>");
  BAD((OpSpec{"buffer.load_to_lds", {P("buffer"), S("i64"), S("i32"), P("lds")}, {}}),
      "buffer.load_to_lds: expected i32 lane and wave byte offsets, got i64, i32");
  BAD((OpSpec{"buffer.load_to_lds", {P("buffer"), S("i32"), S("i32"), P("global")}, {}}),
      "buffer.load_to_lds: expected a ptr<lds> destination, got ptr<global>");
  GOOD((OpSpec{"buffer.load_to_lds", {P("buffer"), S("i32"), S("i32"), P("lds")}, {}}));
  BAD((OpSpec{"mem.offset", {P("buffer"), S("i32")}, {P("buffer")}}),
      "mem.offset: expected a non-buffer pointer, got ptr<buffer>");
  BAD((OpSpec{"mem.offset", {P("global"), S("i16")}, {P("global")}}),
      "mem.offset: expected an i32 or i64 byte offset, got i16");
  BAD((OpSpec{"mem.offset", {P("global"), S("i64")}, {P("lds")}}),
      "mem.offset: expected result ptr<global>, got ptr<lds>");
  BAD((OpSpec{"mem.atomic_add", {P("constant"), S("f32")}, {S("f32")}}),
      "mem.atomic_add: expected a pointer to global or lds, got ptr<constant>");
  BAD((OpSpec{"mem.atomic_add", {P("global"), S("f16")}, {S("f16")}}),
      "mem.atomic_add: expected an f32 or i32 value and result, got f16, f16");
  BAD((OpSpec{"buffer.rsrc", {P("lds"), S("i32")}, {P("buffer")}}),
      "buffer.rsrc: expected a ptr<global> base, got ptr<lds>");
  BAD((OpSpec{"buffer.rsrc", {P("global"), S("i64")}, {P("buffer")}}),
      "buffer.rsrc: expected an i32 byte count, got i64");
  BAD((OpSpec{"buffer.rsrc", {P("global"), S("i32")}, {P("global")}}),
      "buffer.rsrc: expected a ptr<buffer> result, got ptr<global>");
  BAD((OpSpec{"buffer.load", {P("buffer"), S("i64")}, {S("f32")}}),
      "buffer.load: expected an i32 byte offset, got i64");
  BAD((OpSpec{"buffer.load", {P("global"), S("i32")}, {S("f32")}}),
      "buffer.load: expected a pointer to buffer, got ptr<global>");
  BAD((OpSpec{"buffer.store", {P("buffer"), S("i64"), S("f32")}, {}}),
      "buffer.store: expected an i32 byte offset, got i64");
  BAD((OpSpec{"buffer.store", {P("buffer"), S("i32"), V("f16", 32)}, {}}),
      "buffer.store: expected an access of 1, 2, 4, 8, 16 bytes, got vector<32xf16> (64 bytes)");
  GOOD((OpSpec{"buffer.store", {P("buffer"), S("i32"), V("f8e4m3", 16)}, {}}));
}

ROCKE_TEST(mma_rule) {
  const auto mma = [](const char* id, const Type* a, const Type* b, const Type* c, const Type* r) {
    return OpSpec{"matrix.mma", {a, b, c}, {r}, {{"op", id}}};
  };
  BAD(mma("mma_1x1", V("f16", 4), V("f16", 4), V("f32", 4), V("f32", 4)),
      "matrix.mma: expected an op id like mma_16x16x16_f16_f32, got \"mma_1x1\"");
  BAD(mma("mma_16x16x16_f16_f32", V("f32", 4), V("f16", 4), V("f32", 4), V("f32", 4)),
      "matrix.mma: expected A and B fragments of f16, got vector<4xf32>, vector<4xf16>");
  BAD(mma("mma_16x16x16_f16_f32", V("f16", 4), V("f16", 4), V("f16", 4), V("f16", 4)),
      "matrix.mma: expected C and result fragments of f32, got vector<4xf16>, vector<4xf16>");
  BAD(mma("mma_16x16x32_fp8_f32", V("f8e4m3", 8), V("f8e4m3", 8), V("f32", 4), V("f32", 8)),
      "matrix.mma: expected C and result fragments of f32, got vector<4xf32>, vector<8xf32>");
  GOOD(mma("mma_16x16x32_fp8_f32", V("f8e4m3", 8), V("f8e4m3", 8), V("f32", 4), V("f32", 4)));
}

ROCKE_TEST(for_rule) {
  const auto loop = [](std::vector<const Type*> operands, std::vector<const Type*> results,
                       const std::vector<const Type*>& args, std::unique_ptr<Op> last) {
    auto op = make({"scf.for", std::move(operands), std::move(results), {}, 1});
    for (const Type* t : args) op->regions[0].args.push_back(v(t));
    if (last) op->regions[0].ops.push_back(std::move(last));
    return op;
  };
  const Type* i32 = S("i32");
  const Type* f32 = S("f32");
  CHECK_THROWS(VerifyError, check_op(*loop({i32, S("i64"), i32}, {}, {i32}, yield({}))),
               "scf.for: expected i32 bounds and step, got i32, i64, i32");
  CHECK_THROWS(VerifyError, check_op(*loop({i32, i32, i32}, {f32}, {i32}, yield({}))),
               "scf.for: expected one result per carried value, of its type, got [\"f32\"]");
  CHECK_THROWS(VerifyError, check_op(*loop({i32, i32, i32, f32}, {f32}, {i32}, yield({f32}))),
               "scf.for: expected body arguments (i32, f32), got [\"i32\"]");
  CHECK_THROWS(VerifyError, check_op(*loop({i32, i32, i32}, {}, {i32}, nullptr)),
               "scf.for: expected the body to end with scf.yield, got an empty region");
  CHECK_THROWS(VerifyError, check_op(*loop({i32, i32, i32}, {}, {i32}, make({"gpu.barrier", {}, {}}))),
               "scf.for: expected the body to end with scf.yield, got gpu.barrier");
  CHECK_THROWS(VerifyError, check_op(*loop({i32, i32, i32, f32}, {f32}, {i32, f32}, yield({}))),
               "scf.for: expected the body to yield (f32), got ()");
  check_op(*loop({i32, i32, i32, f32, i32}, {f32, i32}, {i32, f32, i32}, yield({f32, i32})));
}

ROCKE_TEST(if_rule) {
  const auto branch = [](const Type* cond, std::vector<const Type*> results, std::unique_ptr<Op> then_last,
                         std::unique_ptr<Op> else_last) {
    auto op = make({"scf.if", {cond}, std::move(results), {}, 2});
    if (then_last) op->regions[0].ops.push_back(std::move(then_last));
    if (else_last) op->regions[1].ops.push_back(std::move(else_last));
    return op;
  };
  const Type* i1 = S("i1");
  const Type* f32 = S("f32");
  CHECK_THROWS(VerifyError, check_op(*branch(S("i32"), {}, yield({}), yield({}))),
               "scf.if: expected an i1 condition, got i32");
  auto with_arg = branch(i1, {}, yield({}), yield({}));
  with_arg->regions[0].args.push_back(v(S("i32")));
  CHECK_THROWS(VerifyError, check_op(*with_arg), "scf.if: expected the then-region without arguments, got 1");
  CHECK_THROWS(VerifyError, check_op(*branch(i1, {f32}, yield({f32}), yield({S("i32")}))),
               "scf.if: expected the else-region to yield (f32), got (i32)");
  CHECK_THROWS(VerifyError, check_op(*branch(i1, {f32}, yield({f32}), nullptr)),
               "scf.if: expected the else-region to end with scf.yield, got an empty region");
  check_op(*branch(i1, {f32}, yield({f32}), yield({f32})));
}

ROCKE_TEST(null_operand_is_named) {
  auto op = make({"arith.neg", {}, {S("f32")}});
  op->operands.push_back(nullptr);
  CHECK_THROWS(VerifyError, check_op(*op), "arith.neg: expected operand 0 to be a Value, got None");
}

int main() { return rocke::testing::run_all(); }
