// The builder, mirroring platform/ir/builder.py call for call: the same ops
// in the same order, the same constants, the same VerifyError messages.
#include "platform/ir/cpp/builder.h"

#include <stdexcept>
#include <utility>

#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/attrs.h"
#include "platform/ir/cpp/ops.h"
#include "platform/ir/cpp/rules.h"
#include "platform/ir/cpp/verifier.h"

namespace rocke::ir {

namespace {

const Type* i1() { return scalar("i1"); }
const Type* i32() { return scalar("i32"); }

bool is_value(const Operand& x) { return std::holds_alternative<Value*>(x.v) && std::get<Value*>(x.v) != nullptr; }

// repr() of a non-Value operand as Python prints the number (or None).
std::string operand_repr(const Operand& x) {
  if (const auto* i = std::get_if<std::int64_t>(&x.v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&x.v)) return float_repr(*d);
  return "None";
}

// A Value's type, for the builder methods that read it before emitting (in
// Python an AttributeError on None).
const Type* type_of(const Value* v, std::string_view method) {
  if (v == nullptr) throw std::invalid_argument(std::string(method) + ": expected a Value, got nullptr");
  return v->type;
}

std::unique_ptr<Op> empty_yield() {
  auto op = std::make_unique<Op>();
  op->name = "scf.yield";
  return op;
}

// builder._region: runs `body` with `block` as the insertion point, then
// ends the block with an empty yield when it has none and the op has no
// results. On an exception the block is popped and the exception passes on,
// as Python's finally does.
void region(std::vector<Block*>& blocks, Block& block, const Op& op, std::size_t results,
            const std::function<void()>& body) {
  blocks.push_back(&block);
  try {
    if (body) body();
  } catch (...) {
    blocks.pop_back();
    throw;
  }
  blocks.pop_back();
  if (block.ops.empty() || block.ops.back()->name != "scf.yield") {
    if (results != 0) {
      throw VerifyError(op.name, "the region to end with b.yield_(" + std::to_string(results) + " values)", "no yield");
    }
    block.ops.push_back(empty_yield());
  }
}

// An if without results may omit its else arm: finish() gives it an empty one.
void fill_else_arms(Block& block) {
  for (auto& op : block.ops) {
    if (op->name == "scf.if" && op->results.empty() && op->regions.size() == 2 && op->regions[1].ops.empty()) {
      op->regions[1].ops.push_back(empty_yield());
    }
    for (Block& r : op->regions) fill_else_arms(r);
  }
}

}  // namespace

KernelBuilder::KernelBuilder(std::string name, std::string_view arch, std::array<int, 3> workgroup_size,
                             std::optional<int> wave_size, std::optional<int> waves_per_eu) {
  const arch::Arch& info = arch::get(arch);
  kernel_ = std::make_unique<Kernel>();
  kernel_->name = std::move(name);
  kernel_->attrs.emplace("arch", std::string(arch));
  kernel_->attrs.emplace("wave_size", wave_size ? *wave_size : info.wave_sizes[0]);
  kernel_->attrs.emplace("workgroup_size", AttrList{workgroup_size[0], workgroup_size[1], workgroup_size[2]});
  if (waves_per_eu) kernel_->attrs.emplace("waves_per_eu", *waves_per_eu);
  blocks_.push_back(&kernel_->body);
}

// -- structure ------------------------------------------------------------------

const arch::Arch& KernelBuilder::arch() const { return arch::get(kernel_->arch()); }

int KernelBuilder::wave_size() const { return static_cast<int>(kernel_->attrs.at("wave_size").as_int()); }

std::array<int, 3> KernelBuilder::workgroup_size() const {
  const AttrList& l = kernel_->attrs.at("workgroup_size").as_list();
  return {static_cast<int>(l[0].as_int()), static_cast<int>(l[1].as_int()), static_cast<int>(l[2].as_int())};
}

Value* KernelBuilder::arg(std::string name, const Type* type) {
  Value* v = kernel_->new_value(type, std::move(name));
  kernel_->args.push_back(v);
  return v;
}

Op& KernelBuilder::emit(std::string_view name, std::vector<Value*> operands,
                        const std::vector<const Type*>& result_types, Attrs attrs, int regions, bool check) {
  auto op = std::make_unique<Op>();
  op->name = std::string(name);
  op->operands = std::move(operands);
  for (const Type* t : result_types) op->results.push_back(kernel_->new_value(t));
  op->attrs = std::move(attrs);
  op->regions.resize(regions);
  const ops::Schema* schema = ops::find(name);
  if (!schema) throw VerifyError("op", "a known op", json::quote(name), std::string(name));
  if (check) check_known_op(*op, *schema);
  Block* block = blocks_.back();
  block->ops.push_back(std::move(op));
  return *block->ops.back();
}

std::unique_ptr<Kernel> KernelBuilder::finish() {
  if (!kernel_)
    throw std::logic_error("KernelBuilder::finish: expected an unfinished kernel, got one finish() already returned");
  if (blocks_.size() != 1) {
    throw VerifyError("kernel @" + kernel_->name, "every for/if closed", std::to_string(blocks_.size() - 1) + " open");
  }
  fill_else_arms(kernel_->body);
  verify(*kernel_);
  return std::move(kernel_);
}

// -- numbers become constants ---------------------------------------------------

Value* KernelBuilder::const_(double value, const Type* type) {
  return emit("arith.const", {}, {type}, {{"value", value}}).results[0];
}

Value* KernelBuilder::const_(std::int64_t value, const Type* type) {
  // Python's const: a float type makes the number a float.
  const AttrValue v = type->is_float() ? AttrValue(static_cast<double>(value)) : AttrValue(value);
  return emit("arith.const", {}, {type}, {{"value", v}}).results[0];
}

namespace {

// builder._coerce: a Value as is, a number as a constant of scalar type `like`.
Value* coerce(KernelBuilder& b, const Operand& x, const Type* like) {
  if (is_value(x)) return std::get<Value*>(x.v);
  if (like->kind() == TypeKind::kScalar) {
    if (const auto* i = std::get_if<std::int64_t>(&x.v)) return b.const_(*i, like);
    if (const auto* d = std::get_if<double>(&x.v)) return b.const_(*d, like);
  }
  throw VerifyError("operand", "a Value or a Python number for a " + like->str() + " operand", operand_repr(x));
}

// builder._pair: one of a, b must be a Value; the other takes its type. a first.
std::pair<Value*, Value*> pair(KernelBuilder& b, const Operand& x, const Operand& y) {
  if (!is_value(x) && !is_value(y)) {
    throw VerifyError("operand", "at least one Value", operand_repr(x) + " and " + operand_repr(y));
  }
  const Type* like = is_value(x) ? std::get<Value*>(x.v)->type : std::get<Value*>(y.v)->type;
  Value* a = coerce(b, x, like);
  Value* c = coerce(b, y, like);
  return {a, c};
}

Value* binary(KernelBuilder& b, std::string_view name, const Operand& x, const Operand& y) {
  const auto [a, c] = pair(b, x, y);
  return b.emit(name, {a, c}, {a->type}).results[0];
}

Value* unary(KernelBuilder& b, std::string_view name, Value* a) {
  const Type* t = type_of(a, name);
  return b.emit(name, {a}, {t}).results[0];
}

}  // namespace

// -- arithmetic -----------------------------------------------------------------

Value* KernelBuilder::add(Operand a, Operand b) { return binary(*this, "arith.add", a, b); }
Value* KernelBuilder::sub(Operand a, Operand b) { return binary(*this, "arith.sub", a, b); }
Value* KernelBuilder::mul(Operand a, Operand b) { return binary(*this, "arith.mul", a, b); }
Value* KernelBuilder::div(Operand a, Operand b) { return binary(*this, "arith.div", a, b); }
Value* KernelBuilder::rem(Operand a, Operand b) { return binary(*this, "arith.rem", a, b); }
Value* KernelBuilder::udiv(Operand a, Operand b) { return binary(*this, "arith.udiv", a, b); }
Value* KernelBuilder::urem(Operand a, Operand b) { return binary(*this, "arith.urem", a, b); }
Value* KernelBuilder::min(Operand a, Operand b) { return binary(*this, "arith.min", a, b); }
Value* KernelBuilder::max(Operand a, Operand b) { return binary(*this, "arith.max", a, b); }
Value* KernelBuilder::max_nnan(Operand a, Operand b) {
  const auto [x, y] = pair(*this, a, b);
  return emit("arith.max", {x, y}, {x->type}, {{"nnan", AttrValue(true)}}).results[0];
}
Value* KernelBuilder::and_(Operand a, Operand b) { return binary(*this, "arith.and", a, b); }
Value* KernelBuilder::or_(Operand a, Operand b) { return binary(*this, "arith.or", a, b); }
Value* KernelBuilder::xor_(Operand a, Operand b) { return binary(*this, "arith.xor", a, b); }
Value* KernelBuilder::shl(Operand a, Operand b) { return binary(*this, "arith.shl", a, b); }
Value* KernelBuilder::shr(Operand a, Operand b) { return binary(*this, "arith.shr", a, b); }
Value* KernelBuilder::neg(Value* a) { return unary(*this, "arith.neg", a); }
Value* KernelBuilder::exp(Value* a) { return unary(*this, "math.exp", a); }
Value* KernelBuilder::exp2(Value* a) { return unary(*this, "math.exp2", a); }
Value* KernelBuilder::log(Value* a) { return unary(*this, "math.log", a); }
Value* KernelBuilder::sqrt(Value* a) { return unary(*this, "math.sqrt", a); }
Value* KernelBuilder::rsqrt(Value* a) { return unary(*this, "math.rsqrt", a); }
Value* KernelBuilder::readfirstlane(Value* a) { return unary(*this, "lane.readfirstlane", a); }

Value* KernelBuilder::cmp(std::string_view pred, Operand a, Operand b) {
  const auto [x, y] = pair(*this, a, b);
  // types.with_element(a.type, I1)
  const Type* t = x->type->kind() == TypeKind::kVector ? vector(i1(), x->type->lanes()) : i1();
  return emit("arith.cmp", {x, y}, {t}, {{"pred", std::string(pred)}}).results[0];
}

Value* KernelBuilder::select(Value* cond, Operand a, Operand b) {
  const auto [x, y] = pair(*this, a, b);
  return emit("arith.select", {cond, x, y}, {x->type}).results[0];
}

Value* KernelBuilder::convert(Value* x, const Type* type) {
  if (type_of(x, "convert") == type) return x;
  return emit("arith.convert", {x}, {type}).results[0];
}

Value* KernelBuilder::bitcast(Value* x, const Type* type) { return emit("arith.bitcast", {x}, {type}).results[0]; }

Value* KernelBuilder::fma(Value* a, Value* b, Value* c) {
  return emit("math.fma", {a, b, c}, {type_of(a, "fma")}).results[0];
}

// -- vectors --------------------------------------------------------------------
// Python reads v.type.elem, an AttributeError for a scalar v; here a scalar
// stands for its own element, so the op's rule names the mistake
// ("expected a vector operand").

Value* KernelBuilder::build(const std::vector<Value*>& elems) {
  if (elems.empty()) throw std::invalid_argument("build: expected at least one element, got none");
  const Type* t = vector(type_of(elems[0], "build"), static_cast<int>(elems.size()));
  return emit("vector.build", elems, {t}).results[0];
}

Value* KernelBuilder::extract(Value* v, int index) {
  return emit("vector.extract", {v}, {type_of(v, "extract")->element()}, {{"index", index}}).results[0];
}

Value* KernelBuilder::insert(Value* v, Operand x, int index) {
  const Type* t = type_of(v, "insert");
  Value* e = coerce(*this, x, t->element());
  return emit("vector.insert", {v, e}, {t}, {{"index", index}}).results[0];
}

Value* KernelBuilder::shuffle(Value* a, Value* b, const std::vector<int>& mask) {
  const Type* t = vector(type_of(a, "shuffle")->element(), static_cast<int>(mask.size()));
  AttrList m(mask.begin(), mask.end());
  return emit("vector.shuffle", {a, b}, {t}, {{"mask", std::move(m)}}).results[0];
}

// -- GPU ------------------------------------------------------------------------

Value* KernelBuilder::thread_id(int dim) { return emit("gpu.thread_id", {}, {i32()}, {{"dim", dim}}).results[0]; }
Value* KernelBuilder::block_id(int dim) { return emit("gpu.block_id", {}, {i32()}, {{"dim", dim}}).results[0]; }
Value* KernelBuilder::block_dim(int dim) { return emit("gpu.block_dim", {}, {i32()}, {{"dim", dim}}).results[0]; }
Value* KernelBuilder::grid_dim(int dim) { return emit("gpu.grid_dim", {}, {i32()}, {{"dim", dim}}).results[0]; }
Value* KernelBuilder::lane_id() { return emit("gpu.lane_id", {}, {i32()}).results[0]; }
void KernelBuilder::barrier() { emit("gpu.barrier", {}, {}); }
void KernelBuilder::lds_barrier() { emit("gpu.lds_barrier", {}, {}); }
void KernelBuilder::sched_barrier() { emit("gpu.sched_barrier", {}, {}); }

Value* KernelBuilder::bpermute(Operand addr, Value* v) {
  Value* a = coerce(*this, addr, i32());
  return emit("lane.bpermute", {a, v}, {type_of(v, "bpermute")}).results[0];
}

// -- memory ---------------------------------------------------------------------

Value* KernelBuilder::lds_alloc(std::int64_t nbytes, std::int64_t align) {
  return emit("mem.lds_alloc", {}, {ptr("lds")}, {{"bytes", nbytes}, {"align", align}}).results[0];
}

Value* KernelBuilder::offset(Value* p, Operand byte_offset) {
  const Type* t = type_of(p, "offset");
  Value* off = coerce(*this, byte_offset, i32());
  return emit("mem.offset", {p, off}, {t}).results[0];
}

Value* KernelBuilder::load(Value* p, const Type* type) { return emit("mem.load", {p}, {type}).results[0]; }

void KernelBuilder::store(Value* p, Value* v) { emit("mem.store", {p, v}, {}); }

Value* KernelBuilder::load_transpose(Value* p, const Type* elem) {
  return emit("mem.load_transpose", {p}, {vector(elem, 4)}).results[0];
}

void KernelBuilder::load_to_lds(Value* src, Value* dst) { emit("mem.load_to_lds", {src, dst}, {}); }

// A vector load of any width, as loads of at most 16 bytes joined by
// shuffles: the low half, then the offset, then the high half (Python's
// left-to-right order).
Value* KernelBuilder::load_wide(Value* p, const Type* vtype) {
  // A pointer type goes to load, whose rule names it (Python: AttributeError).
  if (vtype->kind() != TypeKind::kVector || vtype->nbytes() <= 16) return load(p, vtype);
  const Type* half = vector(vtype->element(), vtype->lanes() / 2);
  Value* lo = load_wide(p, half);
  Value* q = offset(p, half->nbytes());
  Value* hi = load_wide(q, half);
  std::vector<int> mask;
  for (int i = 0; i < vtype->lanes(); ++i) mask.push_back(i);
  return shuffle(lo, hi, mask);
}

// A vector store of any width, as stores of at most 16 bytes.
void KernelBuilder::store_wide(Value* p, Value* v) {
  const Type* t = type_of(v, "store_wide");
  if (t->kind() != TypeKind::kVector || t->nbytes() <= 16) {
    store(p, v);
    return;
  }
  const int n = t->lanes() / 2;
  std::vector<int> low, high;
  for (int i = 0; i < n; ++i) low.push_back(i);
  for (int i = n; i < 2 * n; ++i) high.push_back(i);
  Value* lo = shuffle(v, v, low);
  store_wide(p, lo);
  Value* q = offset(p, t->nbytes() / 2);
  Value* hi = shuffle(v, v, high);
  store_wide(q, hi);
}

Value* KernelBuilder::atomic_add(Value* p, Value* v) {
  return emit("mem.atomic_add", {p, v}, {type_of(v, "atomic_add")}).results[0];
}

Value* KernelBuilder::buffer_rsrc(Value* base, Operand nbytes) {
  Value* n = coerce(*this, nbytes, i32());
  return emit("buffer.rsrc", {base, n}, {ptr("buffer")}).results[0];
}

Value* KernelBuilder::buffer_load(Value* rsrc, Operand byte_offset, const Type* type) {
  Value* off = coerce(*this, byte_offset, i32());
  return emit("buffer.load", {rsrc, off}, {type}).results[0];
}

void KernelBuilder::buffer_store(Value* rsrc, Operand byte_offset, Value* v) {
  Value* off = coerce(*this, byte_offset, i32());
  emit("buffer.store", {rsrc, off, v}, {});
}

void KernelBuilder::buffer_load_to_lds(Value* rsrc, Operand voffset, Operand soffset, Value* dst) {
  Value* v = coerce(*this, voffset, i32());
  Value* s = coerce(*this, soffset, i32());
  emit("buffer.load_to_lds", {rsrc, v, s, dst}, {});
}

Value* KernelBuilder::mma(std::string_view op_id, Value* a, Value* b, Value* c) {
  return emit("matrix.mma", {a, b, c}, {type_of(c, "mma")}, {{"op", std::string(op_id)}}).results[0];
}

// -- run-time control flow ------------------------------------------------------

void KernelBuilder::yield_(const std::vector<Value*>& values) { emit("scf.yield", values, {}); }

std::vector<Value*> KernelBuilder::for_range(Operand lo, Operand hi, Operand step, const std::vector<Value*>& inits,
                                             const std::function<void(const Loop&)>& body) {
  Value* l = coerce(*this, lo, i32());
  Value* h = coerce(*this, hi, i32());
  Value* s = coerce(*this, step, i32());
  std::vector<Value*> operands{l, h, s};
  std::vector<const Type*> carried;
  for (Value* v : inits) {
    operands.push_back(v);
    carried.push_back(type_of(v, "for_range"));
  }
  Op& op = emit("scf.for", std::move(operands), carried, {}, 1, false);
  Block& block = op.regions[0];
  block.args.push_back(kernel_->new_value(i32()));
  for (const Type* t : carried) block.args.push_back(kernel_->new_value(t));
  const Loop loop{block.args[0], std::vector<Value*>(block.args.begin() + 1, block.args.end())};
  region(blocks_, block, op, inits.size(), [&] {
    if (body) body(loop);
  });
  check_op(op);
  return op.results;
}

std::vector<Value*> KernelBuilder::if_(Value* cond, const std::vector<const Type*>& result_types,
                                       const std::function<void()>& then_body, const std::function<void()>& else_body) {
  Op& op = emit("scf.if", {cond}, result_types, {}, 2, false);
  region(blocks_, op.regions[0], op, op.results.size(), then_body);
  // Python checks the rule when the else arm closes; a one-armed if is
  // checked by finish(), after it gets its empty else arm.
  if (else_body) {
    region(blocks_, op.regions[1], op, op.results.size(), else_body);
    check_op(op);
  }
  return op.results;
}

}  // namespace rocke::ir
