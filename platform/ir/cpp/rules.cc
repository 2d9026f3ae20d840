// The op rules of platform/ir/ops.py and the schema check of
// platform/ir/op_schema.py, message for message. The counts, attributes and
// fp8 permission are ops.json's (through //platform/ir/cpp:ops); the rules keep
// what a schema cannot state: how types relate.
#include "platform/ir/cpp/rules.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "platform/ir/cpp/attrs.h"
#include "platform/ir/cpp/mma.h"
#include "platform/ir/cpp/ops.h"
#include "platform/ir/cpp/ops_data.h"
#include "platform/ir/cpp/verifier.h"

namespace rocke::ir {

namespace {

// The types the rules name (types.py's constants).
struct Types {
  const Type* i1 = scalar("i1");
  const Type* i32 = scalar("i32");
  const Type* i64 = scalar("i64");
  const Type* f16 = scalar("f16");
  const Type* f32 = scalar("f32");
  const Type* f8e4m3 = scalar("f8e4m3");
  const Type* f8e5m2 = scalar("f8e5m2");
  const Type* global = ptr("global");
  const Type* lds = ptr("lds");
  const Type* buffer = ptr("buffer");
};

const Types& T() {
  static const Types types;
  return types;
}

// ops.json's tables (ops.TABLES), by name.
const rocke::data::ops::TablesRow& table(std::string_view name) {
  for (const auto& t : rocke::data::ops::kTables) {
    if (t.name == name) return t;
  }
  throw std::logic_error("ops.json has no table " + std::string(name));
}

// A table of ints, or of strings, by name.
std::span<const int> int_table(std::string_view name) {
  const auto& t = table(name);
  if (!t.ints) throw std::logic_error("ops.json's table " + std::string(name) + " is not a list of ints");
  return *t.ints;
}

std::span<const std::string_view> str_table(std::string_view name) {
  const auto& t = table(name);
  if (!t.strs) throw std::logic_error("ops.json's table " + std::string(name) + " is not a list of strings");
  return *t.strs;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? std::string(sep) : "") + items[i];
  return out;
}

std::vector<std::string> strs(std::span<const std::string_view> items) { return {items.begin(), items.end()}; }

std::vector<std::string> type_names(const std::vector<Value*>& values) {
  std::vector<std::string> out;
  for (const Value* v : values) out.push_back(v->type->str());
  return out;
}

std::vector<std::string> type_names(const std::vector<const Type*>& types) {
  std::vector<std::string> out;
  for (const Type* t : types) out.push_back(t->str());
  return out;
}

std::vector<const Type*> types_of(const std::vector<Value*>& values) {
  std::vector<const Type*> out;
  for (const Value* v : values) out.push_back(v->type);
  return out;
}

[[noreturn]] void fail(const Op& op, const std::string& what, const std::string& got) {
  throw VerifyError(op.name, what, got);
}

// An attribute value received: shown for people, held as .rk spells it.
[[noreturn]] void fail_attr(const Op& op, const std::string& what, const AttrValue& got) {
  throw VerifyError(op.name, what, attr_shown(got), attr_text(got));
}

// A list of names received: shown as JSON, held as a list (Python's value too).
[[noreturn]] void fail_names(const Op& op, const std::string& what, const std::vector<std::string>& got) {
  throw VerifyError(op.name, what, json::canonical(names_value(got)), names_value(got));
}

// ops.expect: VerifyError("OP: expected WHAT, got GOT") unless OK. A macro so
// that WHAT and GOT are built only when the check fails: the rules run on
// every op the builder makes, and building every message eagerly was most of
// the C++ engine's emission time (measured with gprof).
#define EXPECT(ok, op, what, got)        \
  do {                                   \
    const bool expect_ok = (ok);         \
    if (!expect_ok) fail(op, what, got); \
  } while (0)
#define EXPECT_NAMES(ok, op, what, got)        \
  do {                                         \
    const bool expect_ok = (ok);               \
    if (!expect_ok) fail_names(op, what, got); \
  } while (0)

// ops.attr: a value rule beyond the schema's (which checked presence and
// kind); `what` makes the wording, only on failure.
template <typename Check, typename What>
void attr(const Op& op, const std::string& key, const Check& check, What what) {
  const AttrValue& v = op.attrs.find(key)->second;
  if (!check(v)) fail_attr(op, key + " to be " + what(), v);
}

void same_types(const Op& op, const std::vector<Value*>& values, const char* what = "operands of one type") {
  const bool one = !values.empty() && std::all_of(values.begin(), values.end(),
                                                  [&](const Value* v) { return v->type == values[0]->type; });
  EXPECT(one, op, what, join(type_names(values), ", "));
}

std::vector<Value*> with_result(const Op& op) {
  std::vector<Value*> all = op.operands;
  all.push_back(op.result());
  return all;
}

bool is_numeric(const Type* t) { return t->kind() != TypeKind::kPtr; }
bool is_vector(const Type* t) { return t->kind() == TypeKind::kVector; }
bool is_ptr(const Type* t) { return t->kind() == TypeKind::kPtr; }
bool is_fp8(const Type* t) { return t->element() == T().f8e4m3 || t->element() == T().f8e5m2; }
// types.with_element
const Type* with_element(const Type* t, const Type* elem) { return is_vector(t) ? vector(elem, t->lanes()) : elem; }

// -- arithmetic ---------------------------------------------------------------

void const_rule(const Op& op) {
  const Type* t = op.result()->type;
  EXPECT(t->kind() == TypeKind::kScalar, op, "a scalar result", t->str());
  const AttrValue& value = op.attrs.find("value")->second;
  if (t->is_int()) {
    if (!is_int(value)) fail_attr(op, "an integer value for " + t->str(), value);
    const std::int64_t v = value.as_int();
    // types.int_range: i1 is a truth value, 0 or 1; others signed. Values
    // past i64 cannot reach here (an AttrValue int is an int64).
    const bool i1 = t == T().i1;
    const int bits = t->bits();
    const std::int64_t lo = i1 ? 0 : (bits == 64 ? INT64_MIN : -(std::int64_t{1} << (bits - 1)));
    const std::int64_t hi = i1 ? 1 : (bits == 64 ? INT64_MAX : (std::int64_t{1} << (bits - 1)) - 1);
    // One spelling per constant: name the signed one of an unsigned reading.
    const bool wraps = !i1 && bits < 64 && hi < v && v < (std::int64_t{1} << bits);
    const std::string spelled =
        wraps ? "; as " + t->str() + " it is spelled " + std::to_string(v - (std::int64_t{1} << bits)) : "";
    EXPECT(lo <= v && v <= hi, op,
           "a value in [" + std::to_string(lo) + ", " + std::to_string(hi) + "] for " + t->str(),
           std::to_string(v) + spelled);
  } else {
    if (!value.is_float()) fail_attr(op, "a float value for " + t->str(), value);
  }
}

void binary_rule(const Op& op) {
  same_types(op, with_result(op), "operands and result of one type");
  const Type* r = op.result()->type;
  EXPECT(is_numeric(r) && r->element() != T().i1, op, "int or float operands", r->str());
}

void max_rule(const Op& op) {
  binary_rule(op);
  // nnan is a promise about floats: an int has no NaN.
  if (op.attrs.contains("nnan"))
    EXPECT(op.result()->type->is_float(), op, "nnan on float operands only", op.result()->type->str());
}

void bitwise_rule(const Op& op) {
  same_types(op, with_result(op), "operands and result of one type");
  EXPECT(op.result()->type->is_int(), op, "integer operands", op.result()->type->str());
}

void neg_rule(const Op& op) {
  same_types(op, with_result(op), "operand and result of one type");
  EXPECT(is_numeric(op.result()->type), op, "a numeric operand", op.result()->type->str());
}

void cmp_rule(const Op& op) {
  same_types(op, op.operands);
  const Type* a = op.operands[0]->type;
  EXPECT(is_numeric(a), op, "numeric operands", a->str());
  const Type* want = with_element(a, T().i1);
  EXPECT(op.result()->type == want, op, "result " + want->str(), op.result()->type->str());
}

void select_rule(const Op& op) {
  const Value* cond = op.operands[0];
  EXPECT(cond->type == T().i1, op, "an i1 condition", cond->type->str());
  same_types(op, {op.operands[1], op.operands[2], op.result()}, "both choices and the result of one type");
}

void convert_rule(const Op& op) {
  const Type* src = op.operands[0]->type;
  const Type* dst = op.result()->type;
  EXPECT(is_numeric(src) && is_numeric(dst), op, "numeric types", src->str() + " -> " + dst->str());
  EXPECT(src->lanes() == dst->lanes(), op, "the same lane count as " + src->str(), dst->str());
}

void bitcast_rule(const Op& op) {
  const Type* src = op.operands[0]->type;
  const Type* dst = op.result()->type;
  EXPECT(is_numeric(src) && is_numeric(dst), op, "numeric types", src->str() + " -> " + dst->str());
  // i1 has no byte size in LLVM: bitcast it neither from nor to i1.
  EXPECT(src->element() != T().i1 && dst->element() != T().i1, op, "no i1 operand or result (use arith.convert)",
         src->str() + " -> " + dst->str());
  EXPECT(src->nbytes() == dst->nbytes(), op, "a type of " + std::to_string(src->nbytes()) + " bytes", dst->str());
}

// -- math -----------------------------------------------------------------------

void unary_float_rule(const Op& op) {
  same_types(op, with_result(op), "operand and result of one type");
  const Type* r = op.result()->type;
  EXPECT(r == T().f32 || r == T().f16, op, "f32 or f16", r->str());
}

void fma_rule(const Op& op) {
  same_types(op, with_result(op), "operands and result of one type");
  const Type* r = op.result()->type;
  EXPECT(r->element() == T().f32 || r->element() == T().f16, op, "f32 or f16 (or vectors of them)", r->str());
}

// -- vectors --------------------------------------------------------------------

void build_rule(const Op& op) {
  const Type* t = op.result()->type;
  EXPECT(is_vector(t), op, "a vector result", t->str());
  EXPECT(static_cast<int>(op.operands.size()) == t->lanes(), op, std::to_string(t->lanes()) + " elements",
         std::to_string(op.operands.size()));
  const bool all =
      std::all_of(op.operands.begin(), op.operands.end(), [&](const Value* v) { return v->type == t->element(); });
  EXPECT_NAMES(all, op, t->element()->str() + " elements", type_names(op.operands));
}

std::function<bool(const AttrValue&)> index_in(int n) {
  return [n](const AttrValue& i) { return 0 <= i.as_int() && i.as_int() < n; };
}

void extract_rule(const Op& op) {
  const Type* v = op.operands[0]->type;
  EXPECT(is_vector(v), op, "a vector operand", v->str());
  attr(op, "index", index_in(v->lanes()), [&] { return "an index in [0, " + std::to_string(v->lanes()) + ")"; });
  EXPECT(op.result()->type == v->element(), op, "result " + v->element()->str(), op.result()->type->str());
}

void insert_rule(const Op& op) {
  const Type* v = op.operands[0]->type;
  const Type* x = op.operands[1]->type;
  EXPECT(is_vector(v), op, "a vector operand", v->str());
  attr(op, "index", index_in(v->lanes()), [&] { return "an index in [0, " + std::to_string(v->lanes()) + ")"; });
  EXPECT(x == v->element() && op.result()->type == v, op,
         "a " + v->element()->str() + " element and result " + v->str(), x->str() + ", " + op.result()->type->str());
}

void shuffle_rule(const Op& op) {
  same_types(op, op.operands);
  const Type* v = op.operands[0]->type;
  EXPECT(is_vector(v), op, "vector operands", v->str());
  const int n2 = 2 * v->lanes();
  const auto ok = [n2](const AttrValue& m) {
    const AttrList& l = m.as_list();
    return 2 <= static_cast<int>(l.size()) && static_cast<int>(l.size()) <= max_lanes() &&
           std::all_of(l.begin(), l.end(), [n2](const AttrValue& i) { return 0 <= i.as_int() && i.as_int() < n2; });
  };
  attr(op, "mask", ok,
       [&] { return "a list of 2 to " + std::to_string(max_lanes()) + " indices in [0, " + std::to_string(n2) + ")"; });
  const Type* want = vector(v->element(), static_cast<int>(op.attrs.find("mask")->second.as_list().size()));
  EXPECT(op.result()->type == want, op, "result " + want->str(), op.result()->type->str());
}

// -- GPU ids, lanes, barriers ---------------------------------------------------

void id_rule(const Op& op) { EXPECT(op.result()->type == T().i32, op, "an i32 result", op.result()->type->str()); }

void readfirstlane_rule(const Op& op) {
  same_types(op, with_result(op), "operand and result of one type");
  const Type* r = op.result()->type;
  EXPECT(r == T().i32 || r == T().f32, op, "i32 or f32", r->str());
}

void bpermute_rule(const Op& op) {
  const Type* addr = op.operands[0]->type;
  const Type* v = op.operands[1]->type;
  const Type* r = op.result()->type;
  EXPECT(addr == T().i32, op, "an i32 byte address", addr->str());
  EXPECT((v == T().i32 || v == T().f32) && r == v, op, "an i32 or f32 value and result", v->str() + ", " + r->str());
}

// -- memory ---------------------------------------------------------------------

bool in_space(const Type* p, std::span<const std::string_view> spaces) {
  return is_ptr(p) && std::find(spaces.begin(), spaces.end(), p->space()) != spaces.end();
}

void access(const Op& op, const Type* t, std::span<const std::string_view> spaces, const Type* p) {
  EXPECT(in_space(p, spaces), op, "a pointer to " + join(strs(spaces), " or "), p->str());
  EXPECT(is_numeric(t) && t->element() != T().i1, op, "a numeric, non-i1 access type", t->str());
  const std::span<const int> sizes = int_table("access_bytes");
  if (std::find(sizes.begin(), sizes.end(), t->nbytes()) == sizes.end()) {
    std::vector<std::string> words;
    for (int s : sizes) words.push_back(std::to_string(s));
    fail(op, "an access of " + join(words, ", ") + " bytes", t->str() + " (" + std::to_string(t->nbytes()) + " bytes)");
  }
}

void lds_alloc_rule(const Op& op) {
  EXPECT(op.result()->type == T().lds, op, "a ptr<lds> result", op.result()->type->str());
}

void offset_rule(const Op& op) {
  const Type* p = op.operands[0]->type;
  const Type* off = op.operands[1]->type;
  EXPECT(is_ptr(p) && p->space() != "buffer", op, "a non-buffer pointer", p->str());
  EXPECT(off == T().i32 || off == T().i64, op, "an i32 or i64 byte offset", off->str());
  EXPECT(op.result()->type == p, op, "result " + p->str(), op.result()->type->str());
}

void load_rule(const Op& op) { access(op, op.result()->type, str_table("load_spaces"), op.operands[0]->type); }

void store_rule(const Op& op) { access(op, op.operands[1]->type, str_table("store_spaces"), op.operands[0]->type); }

// mem.load_transpose's results: 4 16-bit elements (ops.TRANSPOSE_TYPES).
std::vector<const Type*> transpose_types() {
  std::vector<const Type*> out;
  for (std::string_view e : {"f16", "bf16", "i16"}) out.push_back(vector(scalar(e), 4));
  return out;
}

void load_transpose_rule(const Op& op) {
  const Type* p = op.operands[0]->type;
  EXPECT(p == T().lds, op, "a ptr<lds> operand", p->str());
  static const std::vector<const Type*> allowed = transpose_types();
  std::vector<std::string> names;
  for (const Type* t : allowed) names.push_back(t->str());
  const Type* r = op.result()->type;
  EXPECT(std::find(allowed.begin(), allowed.end(), r) != allowed.end(), op, "a result of type " + join(names, ", "),
         r->str());
}

void load_to_lds_rule(const Op& op) {
  const Type* src = op.operands[0]->type;
  const Type* dst = op.operands[1]->type;
  EXPECT(src == T().global, op, "a ptr<global> source", src->str());
  EXPECT(dst == T().lds, op, "a ptr<lds> destination", dst->str());
}

void atomic_add_rule(const Op& op) {
  const Type* p = op.operands[0]->type;
  const Type* v = op.operands[1]->type;
  const Type* r = op.result()->type;
  const std::span<const std::string_view> spaces = str_table("atomic_spaces");
  EXPECT(in_space(p, spaces), op, "a pointer to " + join(strs(spaces), " or "), p->str());
  EXPECT((v == T().f32 || v == T().i32) && r == v, op, "an f32 or i32 value and result", v->str() + ", " + r->str());
}

void rsrc_rule(const Op& op) {
  const Type* base = op.operands[0]->type;
  const Type* size = op.operands[1]->type;
  EXPECT(base == T().global, op, "a ptr<global> base", base->str());
  EXPECT(size == T().i32, op, "an i32 byte count", size->str());
  EXPECT(op.result()->type == T().buffer, op, "a ptr<buffer> result", op.result()->type->str());
}

constexpr std::string_view kBufferSpace[] = {"buffer"};

void buffer_load_rule(const Op& op) {
  EXPECT(op.operands[1]->type == T().i32, op, "an i32 byte offset", op.operands[1]->type->str());
  access(op, op.result()->type, kBufferSpace, op.operands[0]->type);
}

void buffer_load_to_lds_rule(const Op& op) {
  const Type* rsrc = op.operands[0]->type;
  const Type* voffset = op.operands[1]->type;
  const Type* soffset = op.operands[2]->type;
  const Type* dst = op.operands[3]->type;
  EXPECT(rsrc == T().buffer, op, "a ptr<buffer> source", rsrc->str());
  EXPECT(voffset == T().i32 && soffset == T().i32, op, "i32 lane and wave byte offsets",
         voffset->str() + ", " + soffset->str());
  EXPECT(dst == T().lds, op, "a ptr<lds> destination", dst->str());
}

void buffer_store_rule(const Op& op) {
  EXPECT(op.operands[1]->type == T().i32, op, "an i32 byte offset", op.operands[1]->type->str());
  access(op, op.operands[2]->type, kBufferSpace, op.operands[0]->type);
}

// -- matrix cores ---------------------------------------------------------------

void mma_rule(const Op& op) {
  // Fragment lengths depend on the kernel's arch; verifier.cc checks them.
  const Type* a = op.operands[0]->type;
  const Type* b = op.operands[1]->type;
  const Type* c = op.operands[2]->type;
  const AttrValue& id = op.attrs.find("op")->second;
  const std::optional<mma::Shape> s = mma::shape(id.as_str());
  if (!s.has_value()) fail_attr(op, "an op id like mma_16x16x16_f16_f32", id);
  EXPECT(is_vector(a) && a->element() == s->a && is_vector(b) && b->element() == s->a, op,
         "A and B fragments of " + s->a->str(), a->str() + ", " + b->str());
  EXPECT(is_vector(c) && c->element() == s->c && op.result()->type == c, op, "C and result fragments of " + s->c->str(),
         c->str() + ", " + op.result()->type->str());
}

// -- structured control flow ----------------------------------------------------

void yields(const Op& op, const Block& region, const std::vector<const Type*>& types, const std::string& what) {
  const Op* last = region.ops.empty() ? nullptr : region.ops.back().get();
  EXPECT(last != nullptr && last->name == "scf.yield", op, what + " to end with scf.yield",
         last ? last->name : "an empty region");
  const std::vector<const Type*> got = types_of(last->operands);
  EXPECT(got == types, op, what + " to yield (" + join(type_names(types), ", ") + ")",
         "(" + join(type_names(got), ", ") + ")");
}

void for_rule(const Op& op) {
  const Type* lo = op.operands[0]->type;
  const Type* hi = op.operands[1]->type;
  const Type* step = op.operands[2]->type;
  const std::vector<Value*> inits(op.operands.begin() + 3, op.operands.end());
  EXPECT(lo == T().i32 && hi == T().i32 && step == T().i32, op, "i32 bounds and step",
         lo->str() + ", " + hi->str() + ", " + step->str());
  const std::vector<const Type*> carried = types_of(inits);
  EXPECT_NAMES(types_of(op.results) == carried, op, "one result per carried value, of its type",
               type_names(op.results));
  const Block& body = op.regions[0];
  std::vector<const Type*> want{T().i32};
  want.insert(want.end(), carried.begin(), carried.end());
  EXPECT_NAMES(types_of(body.args) == want, op, "body arguments (" + join(type_names(want), ", ") + ")",
               type_names(body.args));
  yields(op, body, carried, "the body");
}

void if_rule(const Op& op) {
  EXPECT(op.operands[0]->type == T().i1, op, "an i1 condition", op.operands[0]->type->str());
  const std::vector<const Type*> results = types_of(op.results);
  const char* const whats[] = {"the then-region", "the else-region"};
  for (std::size_t i = 0; i < op.regions.size() && i < 2; ++i) {
    EXPECT(op.regions[i].args.empty(), op, std::string(whats[i]) + " without arguments",
           std::to_string(op.regions[i].args.size()));
    yields(op, op.regions[i], results, whats[i]);
  }
}

using Rule = void (*)(const Op&);

// Op name -> its type rule (ops.py's @register). Ops with no entry have only
// their schema (gpu.barrier, scf.yield).
const std::map<std::string_view, Rule>& rules() {
  static const std::map<std::string_view, Rule> table = {
      {"arith.const", const_rule},
      {"arith.add", binary_rule},
      {"arith.sub", binary_rule},
      {"arith.mul", binary_rule},
      {"arith.div", binary_rule},
      {"arith.rem", binary_rule},
      {"arith.udiv", bitwise_rule},
      {"arith.urem", bitwise_rule},
      {"arith.min", binary_rule},
      {"arith.max", max_rule},
      {"arith.and", bitwise_rule},
      {"arith.or", bitwise_rule},
      {"arith.xor", bitwise_rule},
      {"arith.shl", bitwise_rule},
      {"arith.shr", bitwise_rule},
      {"arith.neg", neg_rule},
      {"arith.cmp", cmp_rule},
      {"arith.select", select_rule},
      {"arith.convert", convert_rule},
      {"arith.bitcast", bitcast_rule},
      {"math.exp", unary_float_rule},
      {"math.exp2", unary_float_rule},
      {"math.log", unary_float_rule},
      {"math.sqrt", unary_float_rule},
      {"math.rsqrt", unary_float_rule},
      {"math.fma", fma_rule},
      {"vector.build", build_rule},
      {"vector.extract", extract_rule},
      {"vector.insert", insert_rule},
      {"vector.shuffle", shuffle_rule},
      {"gpu.thread_id", id_rule},
      {"gpu.block_id", id_rule},
      {"gpu.block_dim", id_rule},
      {"gpu.grid_dim", id_rule},
      {"gpu.lane_id", id_rule},
      {"lane.readfirstlane", readfirstlane_rule},
      {"lane.bpermute", bpermute_rule},
      {"mem.lds_alloc", lds_alloc_rule},
      {"mem.offset", offset_rule},
      {"mem.load", load_rule},
      {"mem.store", store_rule},
      {"mem.load_transpose", load_transpose_rule},
      {"mem.load_to_lds", load_to_lds_rule},
      {"mem.atomic_add", atomic_add_rule},
      {"buffer.rsrc", rsrc_rule},
      {"buffer.load", buffer_load_rule},
      {"buffer.store", buffer_store_rule},
      {"buffer.load_to_lds", buffer_load_to_lds_rule},
      {"matrix.mma", mma_rule},
      {"scf.for", for_rule},
      {"scf.if", if_rule},
  };
  // ops.py's register refuses a rule for an op ops.json lacks; so does this.
  static const bool checked = [] {
    for (const auto& [name, rule] : table) {
      if (!known_op(name))
        throw std::logic_error("ir/cpp/rules.cc: a rule for " + std::string(name) + ", which ops.json lacks");
    }
    return true;
  }();
  (void)checked;
  return table;
}

// -- the schema (op_schema.check) -----------------------------------------------

// kind -> (accepts a value, how the verifier names it): op_schema.KINDS.
struct Kind {
  std::string_view name;
  bool (*accepts)(const AttrValue&);
  std::string_view what;
};

constexpr Kind kKinds[] = {
    {"bool", [](const AttrValue& v) { return v.is_bool(); }, "a bool"},
    {"float", [](const AttrValue& v) { return v.is_float(); }, "a float"},
    {"int", [](const AttrValue& v) { return v.is_int(); }, "an int"},
    {"int list",
     [](const AttrValue& v) {
       return v.is_list() &&
              std::all_of(v.as_list().begin(), v.as_list().end(), [](const AttrValue& x) { return x.is_int(); });
     },
     "a list of ints"},
    {"number", [](const AttrValue& v) { return v.is_int() || v.is_float(); }, "an int or a float"},
    {"str", [](const AttrValue& v) { return v.is_str(); }, "a str"},
};

const Kind& kind(std::string_view name) {
  for (const Kind& k : kKinds) {
    if (k.name == name) return k;
  }
  throw std::logic_error("ops.json: an attribute of kind " + std::string(name) +
                         ", which ir/cpp/rules.cc does not know");
}

// Python's `value in values` (values all ints or all strs; 1 == 1.0 == True).
bool among(const AttrValue& v, const ops::Attr& a) {
  if (v.is_str()) return std::find(a.strs.begin(), a.strs.end(), v.as_str()) != a.strs.end();
  return std::any_of(a.ints.begin(), a.ints.end(), [&](int i) {
    return (v.is_int() && v.as_int() == i) || (v.is_float() && v.as_float() == i) ||
           (v.is_bool() && int{v.as_bool()} == i);
  });
}

// Names read "one of eq, ne"; numbers read "0, 1 or 2" (op_schema._phrase).
std::string phrase(const ops::Attr& a) {
  if (!a.strs.empty()) return "one of " + join(strs(a.strs), ", ");
  std::vector<std::string> words;
  for (int i : a.ints) words.push_back(std::to_string(i));
  if (words.size() == 1) return words[0];
  const std::string last = words.back();
  words.pop_back();
  return join(words, ", ") + " or " + last;
}

bool at_least(const AttrValue& v, int min) {
  // Python compares any number (True counts as 1); kind checks come first.
  if (v.is_int()) return v.as_int() >= min;
  if (v.is_float()) return v.as_float() >= min;
  return v.is_bool() && int{v.as_bool()} >= min;
}

void check_count(const Op& op, const ops::Count& c, const char* noun, std::size_t got) {
  const bool ok = c.is_min ? std::cmp_greater_equal(got, c.n) : std::cmp_equal(got, c.n);
  if (!ok) {
    const std::string what = (c.is_min ? "at least " : "") + std::to_string(c.n) + " " + noun + "(s)";
    throw VerifyError(op.name, what, std::to_string(got));
  }
}

void check_schema(const Op& op, const ops::Schema& s) {
  check_count(op, s.operands, "operand", op.operands.size());
  check_count(op, s.results, "result", op.results.size());
  check_count(op, ops::Count{s.regions, false}, "region", op.regions.size());
  for (const ops::Attr& a : s.attrs) {  // by name, as sorted(entry["attrs"])
    const auto it = op.attrs.find(a.name);
    if (it == op.attrs.end() && a.optional) continue;
    if (it == op.attrs.end()) {
      std::vector<std::string> keys;
      for (const auto& [k, v] : op.attrs) keys.push_back(k);
      throw VerifyError(op.name, "attribute " + std::string(a.name), "attributes " + json::canonical(names_value(keys)),
                        names_value(keys));
    }
    const AttrValue& value = it->second;
    const Kind& k = kind(a.kind);
    const bool ok = k.accepts(value) && (!a.has_values || among(value, a)) && (!a.min || at_least(value, *a.min));
    if (ok) continue;
    // The last rule that applies names what was expected, as op_schema.check.
    const std::string what = a.min          ? "an int of at least " + std::to_string(*a.min)
                             : a.has_values ? phrase(a)
                                            : std::string(k.what);
    fail_attr(op, std::string(a.name) + " to be " + what, value);
  }
}

// fp8 is a storage type: only the ops ops.json marks fp8 may take or make one.
void no_fp8(const Op& op) {
  for (const auto& [role, values] : {std::pair<const char*, const std::vector<Value*>*>{"operand", &op.operands},
                                     std::pair<const char*, const std::vector<Value*>*>{"result", &op.results}}) {
    for (const Value* v : *values) {
      if (!is_fp8(v->type)) continue;
      std::vector<std::string> fp8_ops;
      for (const ops::Schema& s : ops::all()) {
        if (s.fp8) fp8_ops.emplace_back(s.name);
      }
      throw VerifyError(op.name,
                        std::string("no fp8 ") + role + " (fp8 is storage-only: " + join(fp8_ops, ", ") + " take it)",
                        std::string(role) + " of type " + v->type->str() +
                            "; arith.convert it to f16 or f32 first, and back to fp8 to store");
    }
  }
}

}  // namespace

bool known_op(std::string_view name) { return ops::find(name) != nullptr; }

// The type rule of each op, by the op's position in ops::all() (found once,
// from the table above), so checking an op costs no second name lookup.
static Rule rule_of(const ops::Schema& schema) {
  static const std::vector<Rule> by_index = [] {
    std::vector<Rule> out;
    for (const ops::Schema& s : ops::all()) {
      const auto it = rules().find(s.name);
      out.push_back(it == rules().end() ? nullptr : it->second);
    }
    return out;
  }();
  return by_index[static_cast<std::size_t>(&schema - ops::all().data())];
}

void check_known_op(const Op& op, const ops::Schema& s) {
  // Python's rules would raise AttributeError on None; C++ names it instead.
  for (std::size_t n = 0; n < op.operands.size(); ++n) {
    if (op.operands[n] == nullptr)
      throw VerifyError(op.name, "operand " + std::to_string(n) + " to be a Value", "None");
  }
  std::vector<std::string> extra;
  for (const auto& [k, v] : op.attrs) {
    if (std::none_of(s.attrs.begin(), s.attrs.end(), [&](const ops::Attr& a) { return a.name == k; }))
      extra.push_back(k);
  }
  if (!extra.empty()) {
    std::vector<std::string> keys;
    for (const ops::Attr& a : s.attrs) keys.emplace_back(a.name);
    fail(op, "attributes among (" + join(keys, ", ") + ")", join(extra, ", "));
  }
  if (!s.fp8) no_fp8(op);
  check_schema(op, s);
  if (const Rule rule = rule_of(s)) rule(op);
}

void check_op(const Op& op) {
  const ops::Schema* found = ops::find(op.name);
  if (!found) throw VerifyError("op", "a known op", json::quote(op.name), op.name);
  check_known_op(op, *found);
}

}  // namespace rocke::ir
