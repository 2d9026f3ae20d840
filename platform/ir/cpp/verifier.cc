// Kernel verification, mirroring platform/ir/verifier.py message for
// message: attributes, arguments, scoping, every op's rule, matrix
// fragments and the arch's limits (archs.json through //platform/arch/cpp:arch).
#include "platform/ir/cpp/verifier.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "platform/arch/cpp/arch.h"
#include "platform/ir/cpp/attrs.h"
#include "platform/ir/cpp/mma.h"
#include "platform/ir/cpp/rules.h"

namespace rocke::ir {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what, const std::string& got) {
  throw VerifyError(where, what, got);
}

[[noreturn]] void fail(const std::string& where, const std::string& what, const std::string& got, json::Value value) {
  throw VerifyError(where, what, got, std::move(value));
}

// Kernel and argument names reach LLVM IR and the text form: ASCII
// identifiers only (verifier.NAME, [A-Za-z_][A-Za-z0-9_]*).
bool is_name(std::string_view s) {
  const auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (s.empty() || !alpha(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

std::string join_ints(std::span<const int> xs) {
  std::string out;
  for (int x : xs) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

bool workgroup_ok(const AttrValue& v, const arch::Arch& a) {
  if (!v.is_list() || v.as_list().size() != 3) return false;
  for (const AttrValue& d : v.as_list()) {
    // Each dimension <= the limit first, so the product cannot overflow.
    if (!is_int(d) || d.as_int() < 1 || d.as_int() > a.max_workgroup_size) return false;
  }
  const AttrList& l = v.as_list();
  return l[0].as_int() * l[1].as_int() * l[2].as_int() <= a.max_workgroup_size;
}

// Kernel attribute -> (check(value, arch), what it must be on arch), in the
// order verifier.KERNEL_ATTRS lists them. The arch is checked first: every
// other limit is its data.
struct KernelAttr {
  const char* key;
  std::function<bool(const AttrValue&, const arch::Arch&)> check;
  std::function<std::string(const arch::Arch&)> what;
};

const std::vector<KernelAttr>& kernel_attrs() {
  static const std::vector<KernelAttr> table = {
      {"wave_size",
       [](const AttrValue& v, const arch::Arch& a) {
         return is_int(v) && std::find(a.wave_sizes.begin(), a.wave_sizes.end(), v.as_int()) != a.wave_sizes.end();
       },
       [](const arch::Arch& a) {
         return "a wave size of " + std::string(a.name) + " (" + join_ints(a.wave_sizes) + ")";
       }},
      {"workgroup_size", workgroup_ok,
       [](const arch::Arch& a) {
         return "workgroup_size to be [x, y, z] of positive ints with x*y*z <= " +
                std::to_string(a.max_workgroup_size) + " on " + std::string(a.name);
       }},
      {"waves_per_eu",
       [](const AttrValue& v, const arch::Arch& a) {
         return is_int(v) && a.waves_per_eu[0] <= v.as_int() && v.as_int() <= a.waves_per_eu[1];
       },
       [](const arch::Arch& a) {
         return "waves_per_eu to be an int in " + std::to_string(a.waves_per_eu[0]) + ".." +
                std::to_string(a.waves_per_eu[1]) + " on " + std::string(a.name);
       }},
  };
  return table;
}

constexpr const char* kRequired[] = {"arch", "wave_size", "workgroup_size"};

// Python's repr of a Value: Value(NAME: TYPE), or its id() when unnamed
// (here the object's address; Python's id is its address too, so the number
// differs from run to run on both sides).
std::string value_repr(const Value* v) {
  if (v == nullptr) return "None";
  const std::string id = v->name.empty() ? std::to_string(reinterpret_cast<std::uintptr_t>(v)) : v->name;
  return "Value(" + id + ": " + v->type->str() + ")";
}

void arguments(const std::string& where, const std::vector<Value*>& args) {
  for (const Value* a : args) {
    if (a->type->kind() == TypeKind::kVector || a->type->space() == "lds" || a->type->space() == "buffer") {
      fail(where, "arguments of scalar or global/constant/private pointer type", "%" + a->name + ": " + a->type->str());
    }
    const Type* e = a->type->element();
    if (e == scalar("f8e4m3") || e == scalar("f8e5m2")) {
      fail(where, "no fp8 argument (fp8 is storage-only)",
           "%" + a->name + ": " + a->type->str() +
               "; pass it as i8 and arith.bitcast it, or as f32 and arith.convert it");
    }
  }
  std::vector<std::string> names;
  for (const Value* a : args) names.push_back(a->name);
  const std::set<std::string> distinct(names.begin(), names.end());
  if (distinct.size() != names.size() || !std::all_of(names.begin(), names.end(), is_name)) {
    fail(where, "distinct argument names of ASCII letters, digits and _ (not first a digit)",
         json::canonical(names_value(names)), names_value(names));
  }
}

void fragments(const Op& op, const arch::Arch& a, std::int64_t wave_size) {
  const std::string& op_id = op.attrs.at("op").as_str();
  const auto form =
      std::find_if(a.matrix.begin(), a.matrix.end(), [&](const arch::MatrixOp& m) { return m.op == op_id; });
  if (form == a.matrix.end()) {
    std::string ids;
    for (const arch::MatrixOp& m : a.matrix) ids += (ids.empty() ? "" : ", ") + std::string(m.op);
    fail(op.name, "an op id " + std::string(a.name) + " has (" + ids + ")", op_id);
  }
  if (wave_size != form->wave) {
    const std::string wave = std::to_string(form->wave);
    fail(op.name, "a wave" + wave + " kernel for " + op_id + " on " + std::string(a.name),
         "wave_size " + std::to_string(wave_size) + "; build the kernel with wave_size=" + wave);
  }
  const mma::Fragments want = mma::fragment_types(op_id, a.generation);
  const Type* got[] = {op.operands[0]->type, op.operands[1]->type, op.operands[2]->type};
  if (got[0] != want.a || got[1] != want.b || got[2] != want.c) {
    fail(op.name,
         op_id + " fragments on " + std::string(a.name) + " (" + want.a->str() + ", " + want.b->str() + ", " +
             want.c->str() + ")",
         got[0]->str() + ", " + got[1]->str() + ", " + got[2]->str());
  }
}

// The values visible in a block: the enclosing blocks' arguments and the
// results of the ops before it. One flag per value of the kernel (by
// Value::index), set as the walk goes down and cleared as it leaves a region
// (Python copies its set per op; copying here made verification quadratic in
// the kernel's size, and a hash set of pointers was a third of its time). A
// value of another kernel is never visible.
class Scope {
 public:
  explicit Scope(const Kernel& k) : kernel_(k), visible_(k.values.size(), 0) {}
  bool contains(const Value* v) const { return kernel_.owns(v) && visible_[v->index]; }
  template <typename It>
  void set(It first, It last, char on) {
    for (; first != last; ++first) {
      if (kernel_.owns(*first)) visible_[(*first)->index] = on;
    }
  }

 private:
  const Kernel& kernel_;
  std::vector<char> visible_;
};

void block(const Block& b, Scope& scope, const arch::Arch& a, std::int64_t wave_size, int depth) {
  if (depth > kMaxNesting) {
    fail("region", "regions nested at most " + std::to_string(kMaxNesting) + " deep",
         "a region at depth " + std::to_string(depth));
  }
  const bool in_region = depth > 1;
  std::vector<const Value*> added(b.args.begin(), b.args.end());
  scope.set(b.args.begin(), b.args.end(), 1);
  for (std::size_t i = 0; i < b.ops.size(); ++i) {
    const Op& op = *b.ops[i];
    const ops::Schema* schema = ops::find(op.name);
    if (!schema) fail("op", "a known op", json::quote(op.name), op.name);
    for (std::size_t n = 0; n < op.operands.size(); ++n) {
      if (!scope.contains(op.operands[n])) {
        fail(op.name, "operand " + std::to_string(n) + " defined before use in an enclosing block",
             value_repr(op.operands[n]));
      }
    }
    if (op.name == "scf.yield" && (!in_region || i != b.ops.size() - 1)) {
      fail(op.name, "scf.yield only as the last op of a for or if region",
           "position " + std::to_string(i) + " of " + std::to_string(b.ops.size()));
    }
    // LDS is allocated once per workgroup, not each time a region runs.
    if (op.name == "mem.lds_alloc" && in_region) {
      fail(op.name, "mem.lds_alloc only in the kernel's top-level block (LDS is static)",
           "one inside a for/if region; move it before the loop or if");
    }
    check_known_op(op, *schema);
    if (op.name == "matrix.mma") fragments(op, a, wave_size);
    for (const Block& region : op.regions) block(region, scope, a, wave_size, depth + 1);
    scope.set(op.results.begin(), op.results.end(), 1);
    added.insert(added.end(), op.results.begin(), op.results.end());
  }
  scope.set(added.begin(), added.end(), 0);
}

std::string int128_str(__int128 v) {
  if (v < 0) return "-" + int128_str(-v);
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v > 0);
  return out;
}

void lds_total(const std::string& where, const Kernel& k, const arch::Arch& a) {
  // Each allocation padded to its alignment (LLVM's own layout can differ
  // by a few bytes of padding; exact when sizes are multiples of alignment).
  // 128-bit, as Python's ints do not overflow.
  __int128 total = 0;
  int allocs = 0;
  for (const Op* op : walk(k.body)) {
    if (op->name != "mem.lds_alloc") continue;
    ++allocs;
    const __int128 bytes = op->attrs.at("bytes").as_int();
    const __int128 align = op->attrs.at("align").as_int();
    const __int128 q = bytes / align;
    total += (q + (q * align < bytes ? 1 : 0)) * align;  // -(-bytes // align) * align for bytes >= 1
  }
  if (total > a.lds_bytes) {
    fail(where, "at most " + std::to_string(a.lds_bytes) + " bytes of LDS on " + std::string(a.name),
         int128_str(total) + " bytes in " + std::to_string(allocs) +
             " mem.lds_alloc; use smaller tiles or an arch with more LDS");
  }
}

}  // namespace

void verify(const Kernel& kernel) {
  if (!is_name(kernel.name))
    fail("kernel", "a name of ASCII letters, digits and _ (not first a digit)", json::quote(kernel.name), kernel.name);
  const std::string where = "kernel @" + kernel.name;
  std::vector<std::string> keys;
  for (const auto& [key, value] : kernel.attrs) keys.push_back(key);
  for (const char* key : kRequired) {
    if (!kernel.attrs.contains(key)) {
      fail(where, "attribute " + std::string(key), "attributes " + json::canonical(names_value(keys)),
           names_value(keys));
    }
  }
  const AttrValue& arch_attr = kernel.attrs.at("arch");
  const auto& archs = arch::all();
  if (!arch_attr.is_str() ||
      std::none_of(archs.begin(), archs.end(), [&](const arch::Arch& a) { return a.name == arch_attr.as_str(); })) {
    std::string names;
    for (const arch::Arch& a : archs) names += (names.empty() ? "" : ", ") + std::string(a.name);
    fail(where, "arch to be a known arch (" + names + ")", attr_shown(arch_attr), attr_text(arch_attr));
  }
  const arch::Arch& a = arch::get(arch_attr.as_str());
  // Python checks the attributes in insertion order, which for a builder's
  // kernel is arch, then KERNEL_ATTRS's order; keys it does not know after.
  for (const KernelAttr& ka : kernel_attrs()) {
    const auto it = kernel.attrs.find(ka.key);
    if (it != kernel.attrs.end() && !ka.check(it->second, a)) {
      fail(where, ka.what(a), attr_shown(it->second), attr_text(it->second));
    }
  }
  std::string among = "arch";
  for (const KernelAttr& ka : kernel_attrs()) among += std::string(", ") + ka.key;
  for (const std::string& key : keys) {
    const bool known = key == "arch" || std::any_of(kernel_attrs().begin(), kernel_attrs().end(),
                                                    [&](const KernelAttr& ka) { return key == ka.key; });
    if (!known) fail(where, "an attribute among " + among, key);
  }
  arguments(where, kernel.args);
  Scope scope(kernel);
  scope.set(kernel.args.begin(), kernel.args.end(), 1);
  block(kernel.body, scope, a, kernel.attrs.at("wave_size").as_int(), 1);
  lds_total(where, kernel, a);
}

}  // namespace rocke::ir
