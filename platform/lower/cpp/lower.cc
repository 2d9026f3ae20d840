#include "platform/lower/cpp/lower.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "platform/arch/cpp/arch.h"
#include "platform/ir/cpp/types.h"
#include "platform/ir/cpp/verifier.h"
#include "platform/lower/cpp/emitter.h"
#include "platform/lower/cpp/flavors.h"
#include "platform/lower/cpp/floats.h"
#include "platform/lower/cpp/fp8_ir.h"
#include "platform/lower/cpp/lds_ops_data.h"
#include "platform/lower/cpp/spelling.h"

namespace rocke::lower {

using ir::Op;
using ir::Type;
using ir::Value;
using Names = std::vector<std::string>;

std::string Emitter::arg(const Value* v) const { return ltype(v->type) + " " + values.at(v); }

std::string Emitter::call(const std::string& ret, const std::string& name, const std::vector<std::string>& args,
                          const std::string& flags) {
  // The declaration keeps each argument's type: all but its last word.
  std::string types, text;
  for (size_t i = 0; i < args.size(); ++i) {
    types += (i ? ", " : "") + args[i].substr(0, args[i].rfind(' '));
    text += (i ? ", " : "") + args[i];
  }
  // The same name always has the same declaration: make it once.
  if (!declares.contains(name)) declares[name] = "declare " + ret + " @" + name + "(" + types + ")";
  std::string call = "call " + flags + ret + " @" + name + "(" + text + ")";
  if (ret == "void") {
    emit(call);
    return "";
  }
  return inst(call);
}

namespace {

using Lowering = std::function<Names(Emitter&, const Op&)>;
const std::unordered_map<std::string_view, Lowering>& lowerings();

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

bool is_fp8(const Type* t) {
  const std::string& e = t->element()->str();
  return e == "f8e4m3" || e == "f8e5m2";
}

const Type* with_element(const Type* t, const Type* elem) {
  return t->kind() == ir::TypeKind::kVector ? ir::vector(elem, t->lanes()) : elem;
}

std::int64_t attr_int(const Op& op, const char* key) { return op.attrs.at(key).as_int(); }

json::Array listed(const Names& names) { return {names.begin(), names.end()}; }

// llvm.py's domain_error: op `op` cannot do `what` on this arch; `supported`
// lists where it can (`none` says so when it is empty).
[[noreturn]] void domain_error(const Emitter& e, const Op& op, const std::string& what, const Names& supported,
                               const std::string& none = "none") {
  throw ArchDomainError(op.name, std::string(e.arch.name), listed(supported),
                        op.name + ": " + what + " on " + std::string(e.arch.name) + " with " +
                            std::string(e.flavor.name) +
                            "; supported on: " + (supported.empty() ? none : join(supported, ", ")) +
                            ". Choose a supported arch, or a different op for this one.");
}

// The names an op's region yields (llvm.py's block()): lowers the ops up to
// its scf.yield.
Names block(Emitter& e, const ir::Block& block) {
  for (const auto& op : block.ops) {
    if (op->name == "scf.yield") {
      Names out;
      for (const Value* v : op->operands) out.push_back(e.values.at(v));
      return out;
    }
    Names results = lowerings().at(op->name)(e, *op);
    for (size_t i = 0; i < op->results.size() && i < results.size(); ++i)
      e.values[op->results[i]] = std::move(results[i]);
  }
  return {};
}

// -- op lowerings: each takes (emitter, op) and returns the result names ------

Names lower_const(Emitter& /*unused*/, const Op& op) { return {literal(op.attrs.at("value"), op.results[0]->type)}; }

// int_op/float_op: the instruction ("" for none); the intrinsics (keys of
// flavor_facts.json "intrinsics"), when given, are called instead.
Lowering arith(const std::string& int_op, const std::string& float_op, const std::string& int_intrinsic = "",
               const std::string& float_intrinsic = "") {
  return [=](Emitter& e, const Op& op) -> Names {
    const Type* t = op.results[0]->type;
    const std::string& a = e.values.at(op.operands[0]);
    const std::string& b = e.values.at(op.operands[1]);
    const std::string& lt = ltype(t);
    const std::string& intrinsic = t->is_float() ? float_intrinsic : int_intrinsic;
    if (!intrinsic.empty()) {
      const auto nnan = op.attrs.find("nnan");
      const bool flag = t->is_float() && nnan != op.attrs.end() && nnan->second.as_bool();
      return {e.call(lt, lower::intrinsic(intrinsic, suffix(t)), {lt + " " + a, lt + " " + b}, flag ? "nnan " : "")};
    }
    return {e.inst((t->is_float() ? float_op : int_op) + " " + lt + " " + a + ", " + b)};
  };
}

Names lower_neg(Emitter& e, const Op& op) {
  const Type* t = op.results[0]->type;
  std::string x = e.values.at(op.operands[0]);
  if (t->is_float()) return {e.inst("fneg " + ltype(t) + " " + x)};
  return {e.inst("sub " + ltype(t) + " " + (t->kind() == ir::TypeKind::kVector ? "zeroinitializer" : "0") + ", " + x)};
}

// arith.cmp's predicate -> icmp's and fcmp's (llvm.py's _ICMP, _FCMP).
const std::map<std::string, std::pair<std::string, std::string>, std::less<>> kPredicates = {
    {"eq", {"eq", "oeq"}},  {"ne", {"ne", "une"}},  {"lt", {"slt", "olt"}},
    {"le", {"sle", "ole"}}, {"gt", {"sgt", "ogt"}}, {"ge", {"sge", "oge"}},
};

Names lower_cmp(Emitter& e, const Op& op) {
  const Value* a = op.operands[0];
  const Value* b = op.operands[1];
  const auto& pred = kPredicates.at(op.attrs.at("pred").as_str());
  bool fl = a->type->is_float();
  return {e.inst(std::string(fl ? "fcmp " : "icmp ") + (fl ? pred.second : pred.first) + " " + ltype(a->type) + " " +
                 e.values.at(a) + ", " + e.values.at(b))};
}

Names lower_select(Emitter& e, const Op& op) {
  return {
      e.inst("select i1 " + e.values.at(op.operands[0]) + ", " + e.arg(op.operands[1]) + ", " + e.arg(op.operands[2]))};
}

// src -> dst for one value; fp8 goes through f32.
std::string convert_value(Emitter& e, std::string x, const Type* src, const Type* dst) {
  const Type* f32 = ir::scalar("f32");
  if (is_fp8(src)) {
    x = fp8_decode(e, x, fp8(src->element()->str()));
    src = f32;
  }
  if (is_fp8(dst)) return fp8_encode(e, convert_value(e, x, src, f32), fp8(dst->element()->str()));
  const Type* s = src->element();
  const Type* d = dst->element();
  if (src == dst) return x;
  std::string op;
  if (s->is_int() && d->is_int()) {
    op = d->bits() > s->bits() ? (s->str() == "i1" ? "zext" : "sext") : "trunc";
  } else if (s->is_float() && d->is_float()) {
    if (s->bits() == d->bits()) {  // f16 <-> bf16 goes through f32
      const Type* wide = with_element(src, f32);
      return convert_value(e, convert_value(e, x, src, wide), wide, dst);
    }
    op = d->bits() > s->bits() ? "fpext" : "fptrunc";
  } else if (s->is_int()) {
    op = s->str() == "i1" ? "uitofp" : "sitofp";
  } else {
    op = "fptosi";
  }
  return e.inst(op + " " + ltype(src) + " " + x + " to " + ltype(dst));
}

std::string scalarized(Emitter& e, const std::string& x, const Type* src, const Type* dst) {
  std::string out = "poison";
  for (int i = 0; i < src->lanes(); ++i) {
    std::string elem = e.inst("extractelement " + ltype(src) + " " + x + ", i32 " + std::to_string(i));
    std::string conv = convert_value(e, elem, src->element(), dst->element());
    out = e.inst("insertelement " + ltype(dst) + " " + out + ", " + ltype(dst->element()) + " " + conv + ", i32 " +
                 std::to_string(i));
  }
  return out;
}

Names lower_convert(Emitter& e, const Op& op) {
  const Type* src = op.operands[0]->type;
  const Type* dst = op.results[0]->type;
  std::string x = e.values.at(op.operands[0]);
  if (src == dst) return {x};
  if (src->kind() == ir::TypeKind::kVector && (is_fp8(src) || is_fp8(dst))) return {scalarized(e, x, src, dst)};
  return {convert_value(e, x, src, dst)};
}

Names lower_bitcast(Emitter& e, const Op& op) {
  const Type* src = op.operands[0]->type;
  const Type* dst = op.results[0]->type;
  std::string x = e.values.at(op.operands[0]);
  if (ltype(src) == ltype(dst)) return {x};
  return {e.inst("bitcast " + ltype(src) + " " + x + " to " + ltype(dst))};
}

Lowering math(const std::string& intrinsic) {
  return [=](Emitter& e, const Op& op) -> Names {
    const Type* t = op.results[0]->type;
    Names args;
    for (const Value* v : op.operands) args.push_back(e.arg(v));
    return {e.call(ltype(t), lower::intrinsic(intrinsic, suffix(t)), args)};
  };
}

Names lower_build(Emitter& e, const Op& op) {
  const Type* t = op.results[0]->type;
  std::string out = "poison";
  for (size_t i = 0; i < op.operands.size(); ++i) {
    out = e.inst("insertelement " + ltype(t) + " " + out + ", " + e.arg(op.operands[i]) + ", i32 " + std::to_string(i));
  }
  return {out};
}

Names lower_extract(Emitter& e, const Op& op) {
  return {e.inst("extractelement " + e.arg(op.operands[0]) + ", i32 " + std::to_string(attr_int(op, "index")))};
}

Names lower_insert(Emitter& e, const Op& op) {
  return {e.inst("insertelement " + e.arg(op.operands[0]) + ", " + e.arg(op.operands[1]) + ", i32 " +
                 std::to_string(attr_int(op, "index")))};
}

Names lower_shuffle(Emitter& e, const Op& op) {
  const ir::AttrList& mask = op.attrs.at("mask").as_list();
  Names lanes;
  for (const ir::AttrValue& i : mask) lanes.push_back("i32 " + std::to_string(i.as_int()));
  return {e.inst("shufflevector " + e.arg(op.operands[0]) + ", " + e.arg(op.operands[1]) + ", <" +
                 std::to_string(mask.size()) + " x i32> <" + join(lanes, ", ") + ">")};
}

Lowering id(const std::string& kind) {
  return [=](Emitter& e, const Op& op) -> Names {
    return {e.call("i32", std::string(id_intrinsic(kind, static_cast<int>(attr_int(op, "dim")))), {})};
  };
}

Names lower_block_dim(Emitter& e, const Op& op) {
  return {std::to_string(
      e.kernel.attrs.at("workgroup_size").as_list().at(static_cast<size_t>(attr_int(op, "dim"))).as_int())};
}

Names lower_grid_dim(Emitter& e, const Op& op) {
  // hidden_block_count_{x,y,z}: the first three i32 of the implicit
  // arguments in code object v5 and later.
  std::string base = e.call("ptr addrspace(4)", intrinsic("implicitarg_ptr"), {});
  std::string p = e.inst("getelementptr inbounds i8, ptr addrspace(4) " + base + ", i64 " +
                         std::to_string(4 * attr_int(op, "dim")));
  return {e.inst("load i32, ptr addrspace(4) " + p + ", align 4")};
}

Names lower_lane_id(Emitter& e, const Op& /*unused*/) {
  std::string lo = e.call("i32", intrinsic("mbcnt_lo"), {"i32 -1", "i32 0"});
  if (e.kernel.attrs.at("wave_size").as_int() == 32) return {lo};
  return {e.call("i32", intrinsic("mbcnt_hi"), {"i32 -1", "i32 " + lo})};
}

Names barrier(Emitter& e, const std::string& fence_tail) {
  if (e.barrier_wait) {  // the kernel's direct-to-LDS loads land before any wave goes on
    e.call("void", intrinsic("waitcnt"), {"i32 " + std::to_string(*e.barrier_wait)});
  }
  e.emit("fence syncscope(\"workgroup\") release" + fence_tail);
  if (generation(e.arch.generation).split_barrier) {
    e.call("void", intrinsic("barrier_signal"), {"i32 -1"});
    e.call("void", intrinsic("barrier_wait"), {"i16 -1"});
  } else {
    e.call("void", intrinsic("barrier"), {});
  }
  e.emit("fence syncscope(\"workgroup\") acquire" + fence_tail);
  return {};
}

Names lower_barrier(Emitter& e, const Op& /*unused*/) { return barrier(e, ""); }

// The fences carry AMDGPU's memory-model relaxation annotation "only LDS is
// synchronized": on gfx12 the release then waits for LDS accesses alone, not
// for global loads still in flight (measured: LLVM 20-24).
Names lower_lds_barrier(Emitter& e, const Op& /*unused*/) {
  e.lds_only_fences = true;
  return barrier(e, ", !mmra !" + std::to_string(kLdsOnlyMmra));
}

// The intrinsic of an arch-limited memory op (lds_ops.json), or
// ArchDomainError where the arch has no such instruction (LLVM would end in
// "Cannot select"). llvm.py's _lds_op.
std::string lds_op(const Emitter& e, const Op& op) {
  for (const auto& row : rocke::data::lds_ops::kOps) {
    if (row.name != op.name) continue;
    Names archs;
    for (std::string_view a : row.archs) archs.emplace_back(a);
    if (std::find(row.archs.begin(), row.archs.end(), e.arch.name) == row.archs.end()) {
      domain_error(e, op, "no instruction for " + std::string(row.intrinsic), archs);
    }
    return std::string(row.intrinsic);
  }
  throw std::logic_error("lds_ops.json has no entry for " + op.name);
}

Names lower_load_transpose(Emitter& e, const Op& op) {
  const Type* t = op.results[0]->type;
  return {e.call(ltype(t), lds_op(e, op) + "." + suffix(t), {e.arg(op.operands[0])})};
}

// The barrier_wait of the first op of `kernel` whose lds_ops.json entry has one.
std::optional<int> barrier_wait(const ir::Kernel& kernel) {
  for (const Op* op : ir::walk(kernel.body)) {
    for (const auto& row : rocke::data::lds_ops::kOps) {
      if (row.name == op->name && row.barrier_wait) return static_cast<int>(*row.barrier_wait);
    }
  }
  return std::nullopt;
}

Names lower_load_to_lds(Emitter& e, const Op& op) {
  // 16 bytes per lane; no immediate offset; aux 0 (default cache policy).
  e.call("void", lds_op(e, op), {e.arg(op.operands[0]), e.arg(op.operands[1]), "i32 16", "i32 0", "i32 0"});
  return {};
}

Names lower_buffer_load_to_lds(Emitter& e, const Op& op) {
  // 16 bytes per lane; no immediate offset; aux 0 (default cache policy).
  e.call("void", lds_op(e, op),
         {e.arg(op.operands[0]), e.arg(op.operands[3]), "i32 16", e.arg(op.operands[1]), e.arg(op.operands[2]), "i32 0",
          "i32 0"});
  return {};
}

Names lower_sched_barrier(Emitter& e, const Op& /*unused*/) {
  e.call("void", intrinsic("sched_barrier"), {"i32 0"});  // mask 0: no instruction crosses
  return {};
}

Names lower_readfirstlane(Emitter& e, const Op& op) {
  const Type* t = op.results[0]->type;
  return {e.call(ltype(t), intrinsic("readfirstlane", suffix(t)), {e.arg(op.operands[0])})};
}

Names lower_bpermute(Emitter& e, const Op& op) {
  const Value* addr = op.operands[0];
  const Value* v = op.operands[1];
  bool f32 = v->type == ir::scalar("f32");
  std::string x = e.values.at(v);
  if (f32) x = e.inst("bitcast float " + x + " to i32");
  std::string r = e.call("i32", intrinsic("bpermute"), {"i32 " + e.values.at(addr), "i32 " + x});
  return {f32 ? e.inst("bitcast i32 " + r + " to float") : r};
}

Names lower_lds_alloc(Emitter& e, const Op& op) {
  int n = e.next_lds++;
  std::string name = "@rocke.lds." + std::to_string(n);
  e.add_global(GlobalKind::kLds, n, "",
               name + " = internal addrspace(3) global [" + std::to_string(attr_int(op, "bytes")) +
                   " x i8] poison, align " + std::to_string(attr_int(op, "align")));
  return {name};
}

Names lower_offset(Emitter& e, const Op& op) {
  return {e.inst("getelementptr inbounds i8, " + e.arg(op.operands[0]) + ", " + e.arg(op.operands[1]))};
}

std::string align(const Type* t) { return std::to_string(t->element()->nbytes()); }

Names lower_load(Emitter& e, const Op& op) {
  const Type* t = op.results[0]->type;
  return {e.inst("load " + ltype(t) + ", " + e.arg(op.operands[0]) + ", align " + align(t))};
}

Names lower_store(Emitter& e, const Op& op) {
  e.emit("store " + e.arg(op.operands[1]) + ", " + e.arg(op.operands[0]) + ", align " + align(op.operands[1]->type));
  return {};
}

Names lower_atomic_add(Emitter& e, const Op& op) {
  const Value* v = op.operands[1];
  std::string kind = v->type->is_float() ? "fadd" : "add";
  return {e.inst("atomicrmw " + kind + " " + e.arg(op.operands[0]) + ", " + e.arg(v) +
                 " syncscope(\"agent\") monotonic, align 4")};
}

Names lower_rsrc(Emitter& e, const Op& op) {
  std::string count = e.values.at(op.operands[1]);
  std::string count_type(e.flavor.rsrc_count_type);
  if (count_type == "i64") count = e.inst("zext i32 " + count + " to i64");
  int flags = generation(e.arch.generation).buffer_flags;
  return {e.call("ptr addrspace(8)", std::string(e.flavor.rsrc_intrinsic),
                 {e.arg(op.operands[0]), "i16 0", count_type + " " + count, "i32 " + std::to_string(flags)})};
}

Access access(const Type* t) {
  std::optional<Access> a = buffer_access(t->nbytes());
  if (!a)
    throw std::logic_error("buffer access of " + std::to_string(t->nbytes()) + " bytes: not in flavor_facts.json");
  return *a;
}

Names lower_buffer_load(Emitter& e, const Op& op) {
  const Type* t = op.results[0]->type;
  Access a = access(t);
  std::string raw(a.type);
  std::string r =
      e.call(raw, intrinsic("buffer_load", a.suffix), {e.arg(op.operands[0]), e.arg(op.operands[1]), "i32 0", "i32 0"});
  return {raw == ltype(t) ? r : e.inst("bitcast " + raw + " " + r + " to " + ltype(t))};
}

Names lower_buffer_store(Emitter& e, const Op& op) {
  const Value* v = op.operands[2];
  Access a = access(v->type);
  std::string raw(a.type);
  std::string x = raw == ltype(v->type) ? e.values.at(v) : e.inst("bitcast " + e.arg(v) + " to " + raw);
  e.call("void", intrinsic("buffer_store", a.suffix),
         {raw + " " + x, e.arg(op.operands[0]), e.arg(op.operands[1]), "i32 0", "i32 0"});
  return {};
}

Names lower_mma(Emitter& e, const Op& op) {
  const std::string& op_id = op.attrs.at("op").as_str();
  std::optional<MmaLowering> form = mma(op_id, e.arch.generation, e.flavor.name);
  if (!form) {
    Names supported;
    for (std::string_view f : mma_generations(op_id)) supported.emplace_back(f);
    domain_error(e, op, op_id + " has no intrinsic", supported, "no generation");
  }
  std::string ab_type(form->ab), c_type(form->c);
  Names ab;
  for (const Value* v : {op.operands[0], op.operands[1]}) {
    std::string x = e.values.at(v);
    if (!form->cast.empty()) x = e.inst("bitcast " + e.arg(v) + " to " + ab_type);
    ab.push_back(ab_type + " " + x);
  }
  std::string cc = c_type + " " + e.values.at(op.operands[2]);
  // How each operand form lays out the intrinsic's arguments (mma_forms.OPERAND_FORMS).
  const std::map<std::string_view, Names> args = {
      {"mfma", {ab[0], ab[1], cc, "i32 0", "i32 0", "i32 0"}},
      {"wmma", {ab[0], ab[1], cc}},
      {"wmma8", {"i1 false", ab[0], "i1 false", ab[1], "i16 0", cc, "i1 false", "i1 false"}},
      {"wmma6", {ab[0], ab[1], "i16 0", cc, "i1 false", "i1 false"}},
  };
  return {e.call(c_type, std::string(form->intrinsic), args.at(form->form))};
}

// The back edge's ", !llvm.loop !N" of a loop whose body holds a matrix op, else
// "" (llvm.py's _loop_id says why).
std::string loop_id(Emitter& e, const ir::Block& body) {
  const std::vector<const Op*> ops = ir::walk(body);
  if (std::none_of(ops.begin(), ops.end(), [](const Op* o) { return o->name == "matrix.mma"; })) return "";
  return ", !llvm.loop !" + std::to_string(kMatrixLoop0 + e.matrix_loops++);
}

Names lower_for(Emitter& e, const Op& op) {
  const Value* lo = op.operands[0];
  const Value* hi = op.operands[1];
  const Value* step = op.operands[2];
  const ir::Block& body = op.regions[0];
  std::string head = e.new_label("for.head");
  std::string loop = e.new_label("for.body");
  std::string done = e.new_label("for.exit");
  std::string entry_label = e.label;
  e.emit("br label %" + head);
  e.start_block(head);
  size_t phi_at = e.lines.size();
  Names phis;
  for (size_t i = 0; i < body.args.size(); ++i) phis.push_back(e.fresh());
  for (size_t i = 0; i < body.args.size(); ++i) e.values[body.args[i]] = phis[i];
  std::string cond = e.inst("icmp slt i32 " + phis[0] + ", " + e.values.at(hi));
  e.emit("br i1 " + cond + ", label %" + loop + ", label %" + done);
  e.start_block(loop);
  Names yielded = block(e, body);
  std::string next = e.inst("add i32 " + phis[0] + ", " + e.values.at(step));
  std::string latch = e.label;
  e.emit("br label %" + head + loop_id(e, body));
  Names incoming = {e.values.at(lo)};
  for (size_t i = 3; i < op.operands.size(); ++i) incoming.push_back(e.values.at(op.operands[i]));
  Names back = {next};
  back.insert(back.end(), yielded.begin(), yielded.end());
  Names phi_lines;
  for (size_t i = 0; i < phis.size() && i < incoming.size() && i < back.size(); ++i) {
    phi_lines.push_back("  " + phis[i] + " = phi " + ltype(body.args[i]->type) + " [ " + incoming[i] + ", %" +
                        entry_label + " ], [ " + back[i] + ", %" + latch + " ]");
  }
  e.lines.insert(e.lines.begin() + static_cast<std::ptrdiff_t>(phi_at), phi_lines.begin(), phi_lines.end());
  e.start_block(done);
  return {phis.begin() + 1, phis.end()};
}

Names lower_if(Emitter& e, const Op& op) {
  std::string then = e.new_label("if.then");
  std::string else_ = e.new_label("if.else");
  std::string end = e.new_label("if.end");
  e.emit("br i1 " + e.values.at(op.operands[0]) + ", label %" + then + ", label %" + else_);
  std::vector<std::pair<Names, std::string>> arms;
  const std::pair<std::string, const ir::Block*> regions[] = {{then, &op.regions.front()}, {else_, &op.regions.back()}};
  for (const auto& [label, region] : regions) {
    e.start_block(label);
    Names values = block(e, *region);
    arms.emplace_back(values, e.label);
    e.emit("br label %" + end);
  }
  e.start_block(end);
  Names out;
  for (size_t i = 0; i < op.results.size(); ++i) {
    out.push_back(e.inst("phi " + ltype(op.results[i]->type) + " [ " + arms[0].first.at(i) + ", %" + arms[0].second +
                         " ], [ " + arms[1].first.at(i) + ", %" + arms[1].second + " ]"));
  }
  return out;
}

// Op name -> its lowering; hashed, as it is looked up for every op.
const std::unordered_map<std::string_view, Lowering>& lowerings() {
  static const std::unordered_map<std::string_view, Lowering> table = {
      {"arith.const", lower_const},
      {"arith.add", arith("add", "fadd")},
      {"arith.sub", arith("sub", "fsub")},
      {"arith.mul", arith("mul", "fmul")},
      {"arith.div", arith("sdiv", "fdiv")},
      {"arith.rem", arith("srem", "frem")},
      {"arith.udiv", arith("udiv", "")},
      {"arith.urem", arith("urem", "")},
      {"arith.min", arith("", "", "smin", "minnum")},
      {"arith.max", arith("", "", "smax", "maxnum")},
      {"arith.and", arith("and", "")},
      {"arith.or", arith("or", "")},
      {"arith.xor", arith("xor", "")},
      {"arith.shl", arith("shl", "")},
      {"arith.shr", arith("ashr", "")},
      {"arith.neg", lower_neg},
      {"arith.cmp", lower_cmp},
      {"arith.select", lower_select},
      {"arith.convert", lower_convert},
      {"arith.bitcast", lower_bitcast},
      {"math.exp", math("exp")},
      {"math.exp2", math("exp2")},
      {"math.log", math("log")},
      {"math.sqrt", math("sqrt")},
      {"math.rsqrt", math("rsq")},
      {"math.fma", math("fma")},
      {"vector.build", lower_build},
      {"vector.extract", lower_extract},
      {"vector.insert", lower_insert},
      {"vector.shuffle", lower_shuffle},
      {"gpu.thread_id", id("workitem")},
      {"gpu.block_id", id("workgroup")},
      {"gpu.block_dim", lower_block_dim},
      {"gpu.grid_dim", lower_grid_dim},
      {"gpu.lane_id", lower_lane_id},
      {"gpu.barrier", lower_barrier},
      {"gpu.lds_barrier", lower_lds_barrier},
      {"gpu.sched_barrier", lower_sched_barrier},
      {"lane.readfirstlane", lower_readfirstlane},
      {"lane.bpermute", lower_bpermute},
      {"mem.lds_alloc", lower_lds_alloc},
      {"mem.offset", lower_offset},
      {"mem.load", lower_load},
      {"mem.store", lower_store},
      {"mem.load_transpose", lower_load_transpose},
      {"mem.load_to_lds", lower_load_to_lds},
      {"mem.atomic_add", lower_atomic_add},
      {"buffer.rsrc", lower_rsrc},
      {"buffer.load", lower_buffer_load},
      {"buffer.store", lower_buffer_store},
      {"buffer.load_to_lds", lower_buffer_load_to_lds},
      {"matrix.mma", lower_mma},
      {"scf.for", lower_for},
      {"scf.if", lower_if},
  };
  return table;
}

std::string module(Emitter& e) {
  block(e, e.kernel.body);
  const ir::Kernel& k = e.kernel;
  // No noalias: two pointer arguments may name the same buffer.
  Names params;
  for (const Value* a : k.args) params.push_back(ltype(a->type) + " noundef %arg." + a->name);
  std::int64_t size = 1;
  for (const ir::AttrValue& d : k.attrs.at("workgroup_size").as_list()) size *= d.as_int();
  Names fn_attrs = {"\"amdgpu-flat-work-group-size\"=\"1," + std::to_string(size) + "\"",
                    "\"target-cpu\"=\"" + std::string(e.arch.name) + "\"", "\"uniform-work-group-size\"=\"true\""};
  if (auto w = k.attrs.find("waves_per_eu"); w != k.attrs.end()) {
    fn_attrs.push_back("\"amdgpu-waves-per-eu\"=\"" + std::to_string(w->second.as_int()) + "\"");
  }
  if (k.attrs.at("wave_size").as_int() == 64 && e.arch.wave_sizes[0] == 32)
    fn_attrs.emplace_back("\"target-features\"=\"+wavefrontsize64\"");
  std::sort(fn_attrs.begin(), fn_attrs.end());
  // The module's lines joined by newlines, appended to one string (the body
  // is most of a module: copying its lines into a list first cost a copy of each).
  std::size_t bytes = 4096;
  for (const std::string& line : e.lines) bytes += line.size() + 1;
  for (const auto& [key, definition] : e.globals) bytes += definition.size() + 1;
  std::string out;
  out.reserve(bytes);
  const auto line = [&out](std::string_view text) {
    out += text;
    out += '\n';
  };
  line("; rocke kernel " + k.name + " for " + std::string(e.arch.name) + ", lowered for " + std::string(e.flavor.name));
  line("target datalayout = \"" + std::string(e.flavor.datalayout) + "\"");
  line("target triple = \"" + e.flavor.triple(e.arch.name) + "\"");
  line("");
  for (const auto& [key, definition] : e.globals) line(definition);
  if (!e.globals.empty()) line("");
  line("define amdgpu_kernel void @" + k.name + "(" + join(params, ", ") + ") #0 {");
  line("entry:");
  for (const std::string& l : e.lines) line(l);
  line("  ret void");
  line("}");
  line("");
  for (const auto& [name, declaration] : e.declares) line(declaration);
  line("");
  line("attributes #0 = { " + join(fn_attrs, " ") + " }");
  line("");
  line("!llvm.module.flags = !{!0}");
  line("!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 " + std::to_string(e.flavor.code_object_version) + "}");
  if (e.lds_only_fences) line("!" + std::to_string(kLdsOnlyMmra) + " = !{!\"amdgpu-synchronize-as\", !\"local\"}");
  if (e.matrix_loops > 0) line("!" + std::to_string(kNoUnroll) + " = !{!\"llvm.loop.unroll.disable\"}");
  for (int n = kMatrixLoop0; n < kMatrixLoop0 + e.matrix_loops; ++n) {
    line("!" + std::to_string(n) + " = distinct !{!" + std::to_string(n) + ", !" + std::to_string(kNoUnroll) + "}");
  }
  // The last line, "", has no newline after it (join's output).
  return out;
}

// The flavor called `name`; ArchDomainError naming the flavors otherwise.
const Flavor& flavor_named(std::string_view name) {
  const Flavor* flavor = find_flavor(name);
  if (!flavor) {
    Names names;
    for (const Flavor& f : flavors()) names.emplace_back(f.name);
    throw ArchDomainError("flavor", std::string(name), listed(names),
                          errors::worded("flavor", "one of " + join(names, ", "), std::string(name)));
  }
  return *flavor;
}

// lower() after its verification: the arch check, then the module.
std::string lower_checked(const ir::Kernel& kernel, const Flavor& flavor) {
  const arch::Arch& arch = arch::get(kernel.arch());
  if (!flavor.knows(arch.name)) {
    Names names;
    for (std::string_view f : supporting(arch.name)) names.emplace_back(f);
    throw ArchDomainError("flavor", std::string(flavor.name), listed(names),
                          "kernel @" + kernel.name + ": " + std::string(arch.name) + " is not known to " +
                              std::string(flavor.name) +
                              "; flavors that support it: " + (names.empty() ? "none" : join(names, ", ")) +
                              ". Lower for one of those, or pick another arch.");
  }
  Emitter e{kernel, flavor, arch};
  e.barrier_wait = barrier_wait(kernel);
  return module(e);
}

}  // namespace

std::string lower(const ir::Kernel& kernel, std::string_view flavor_name) {
  const Flavor& flavor = flavor_named(flavor_name);
  ir::verify(kernel);
  return lower_checked(kernel, flavor);
}

std::string lower_verified(const ir::Kernel& kernel, std::string_view flavor_name) {
  return lower_checked(kernel, flavor_named(flavor_name));
}

}  // namespace rocke::lower
