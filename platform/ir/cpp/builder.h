// The builder, mirroring platform/ir/builder.py: how C++ families write
// kernels. Every op is checked by its rule as it is created (VerifyError at
// the call that made it); finish() verifies the whole kernel.
//
//   KernelBuilder b("axpy", "gfx942", {256, 1, 1});
//   Value* x = b.arg("x", ptr("global"));
//   Value* n = b.arg("n", scalar("i32"));
//   Value* i = b.add(b.mul(b.block_id(0), 256), b.thread_id(0));   // see ORDER
//   b.if_(b.cmp("lt", i, n), {}, [&] { ... });
//   std::unique_ptr<Kernel> k = b.finish();
//
// ORDER: C++ evaluates a call's arguments in an unspecified order, Python
// left to right. Ops are appended as they are created, so a mirror of
// Python's `b.add(b.mul(a, 2), b.thread_id(0))` must name the inner values
// first (`Value* m = b.mul(a, 2); Value* t = b.thread_id(0); b.add(m, t);`)
// or its op order, and so its bytes, may differ from Python's.
//
// Python-time control flow is plain C++ (if, for); run-time control flow is
// for_range and if_, taking the region bodies as callables.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "platform/arch/cpp/arch.h"
#include "platform/ir/cpp/core.h"

namespace rocke::ir {

// An operand that may be a C++ number, made a constant of the other
// operand's type (Python's _coerce): an int, or a double for a float.
struct Operand {
  std::variant<Value*, std::int64_t, double> v;
  // NOLINTBEGIN(misc-explicit-constructor): implicit on purpose, so that an op
  // takes a value or a plain number (b.add(x, 1)), as in Python.
  Operand(Value* x) : v(x) {}
  Operand(int i) : v(std::int64_t{i}) {}
  Operand(std::int64_t i) : v(i) {}
  Operand(double d) : v(d) {}
  // NOLINTEND(misc-explicit-constructor)
};

// A run-time loop's induction variable and carried values, for its body.
struct Loop {
  Value* iv;
  std::vector<Value*> iters;
};

class KernelBuilder {
 public:
  KernelBuilder(std::string name, std::string_view arch, std::array<int, 3> workgroup_size,
                std::optional<int> wave_size = std::nullopt, std::optional<int> waves_per_eu = std::nullopt);

  // -- structure --
  const arch::Arch& arch() const;
  int wave_size() const;
  std::array<int, 3> workgroup_size() const;
  Value* arg(std::string name, const Type* type);
  // Appends op `name`; checks its rule unless `check` is false.
  Op& emit(std::string_view name, std::vector<Value*> operands, const std::vector<const Type*>& result_types,
           Attrs attrs = {}, int regions = 0, bool check = true);
  std::unique_ptr<Kernel> finish();

  // -- numbers become constants --
  Value* const_(double value, const Type* type);
  Value* const_(std::int64_t value, const Type* type);
  Value* const_(int value, const Type* type) { return const_(std::int64_t{value}, type); }

  // -- arithmetic (one of a, b may be a number) --
  Value* add(Operand a, Operand b);
  Value* sub(Operand a, Operand b);
  Value* mul(Operand a, Operand b);
  Value* div(Operand a, Operand b);
  Value* rem(Operand a, Operand b);
  // Division and remainder of the operands read as unsigned integers: for index
  // math that is never negative, where LLVM 20 expands div/rem far longer.
  Value* udiv(Operand a, Operand b);
  Value* urem(Operand a, Operand b);
  Value* min(Operand a, Operand b);
  Value* max(Operand a, Operand b);
  // max of two floats neither of which is NaN (arith.max {nnan = true}):
  // LLVM need not quiet them first.
  Value* max_nnan(Operand a, Operand b);
  Value* and_(Operand a, Operand b);
  Value* or_(Operand a, Operand b);
  Value* xor_(Operand a, Operand b);
  Value* shl(Operand a, Operand b);
  Value* shr(Operand a, Operand b);
  Value* neg(Value* a);
  Value* exp(Value* a);
  Value* exp2(Value* a);
  Value* log(Value* a);
  Value* sqrt(Value* a);
  Value* rsqrt(Value* a);
  Value* readfirstlane(Value* a);
  Value* cmp(std::string_view pred, Operand a, Operand b);
  Value* select(Value* cond, Operand a, Operand b);
  Value* convert(Value* x, const Type* type);  // x itself when already of `type`
  Value* bitcast(Value* x, const Type* type);
  Value* fma(Value* a, Value* b, Value* c);

  // -- vectors --
  Value* build(const std::vector<Value*>& elems);
  Value* extract(Value* v, int index);
  Value* insert(Value* v, Operand x, int index);
  Value* shuffle(Value* a, Value* b, const std::vector<int>& mask);

  // -- GPU --
  Value* thread_id(int dim);
  Value* block_id(int dim);
  Value* block_dim(int dim);
  Value* grid_dim(int dim);
  Value* lane_id();
  void barrier();
  // A barrier that orders LDS accesses only (builder.py's lds_barrier).
  void lds_barrier();
  // LLVM's scheduler moves no instruction across this point (sched_barrier).
  void sched_barrier();
  Value* bpermute(Operand addr, Value* v);

  // -- memory --
  Value* lds_alloc(std::int64_t nbytes, std::int64_t align = 16);
  Value* offset(Value* p, Operand byte_offset);
  Value* load(Value* p, const Type* type);
  void store(Value* p, Value* v);
  // ds_read_b64_tr_b16 (builder.py's load_transpose): a vector<4 x elem>.
  Value* load_transpose(Value* p, const Type* elem);
  // global_load_lds_dwordx4 (builder.py's load_to_lds).
  void load_to_lds(Value* src, Value* dst);
  Value* load_wide(Value* p, const Type* vtype);
  void store_wide(Value* p, Value* v);
  Value* atomic_add(Value* p, Value* v);
  Value* buffer_rsrc(Value* base, Operand nbytes);
  Value* buffer_load(Value* rsrc, Operand byte_offset, const Type* type);
  void buffer_store(Value* rsrc, Operand byte_offset, Value* v);
  // buffer_load_dwordx4 ... lds (builder.py's buffer_load_to_lds).
  void buffer_load_to_lds(Value* rsrc, Operand voffset, Operand soffset, Value* dst);
  Value* mma(std::string_view op_id, Value* a, Value* b, Value* c);

  // -- run-time control flow --
  void yield_(const std::vector<Value*>& values);
  // scf.for over [lo, hi) by step carrying `inits`; `body` must end with
  // yield_ of one value per init (or yield nothing when there are none).
  // Returns the loop's results.
  std::vector<Value*> for_range(Operand lo, Operand hi, Operand step, const std::vector<Value*>& inits,
                                const std::function<void(const Loop&)>& body);
  // scf.if; `else_body` may be empty when there are no results.
  std::vector<Value*> if_(Value* cond, const std::vector<const Type*>& result_types,
                          const std::function<void()>& then_body, const std::function<void()>& else_body = nullptr);

 private:
  std::unique_ptr<Kernel> kernel_;
  std::vector<Block*> blocks_;
};

}  // namespace rocke::ir
