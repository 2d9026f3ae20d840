#include "platform/tile/cpp/gather.h"

#include <stdexcept>
#include <string>
#include <variant>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/types.h"

namespace rocke::tile {

namespace {

using ir::KernelBuilder;
using ir::Value;

// GatherCopy.__post_init__'s own checks, which Python makes before
// TileCopy's: run from the base's initialiser, so they come first here too.
std::string checked(const std::optional<Gather>& gather, std::string contiguous) {
  if (!gather || !gather->address) {
    throw errors::FieldError(errors::kFieldError, "GatherCopy", json::Object{{"gather", nullptr}}, nullptr,
                             "GatherCopy: expected a Gather (tile/cpp/gather.h), got none");
  }
  if (contiguous != gather->contiguous) {
    throw errors::FieldError(
        errors::kFieldError, "GatherCopy", json::Object{{"contiguous", contiguous}}, json::Array{gather->contiguous},
        "GatherCopy: expected contiguous " + json::quote(gather->contiguous) + " (the tile is gathered by " +
            gather->contiguous + " runs), got " + json::quote(contiguous));
  }
  if (gather->stepped && !gather->runs) {
    throw errors::FieldError(errors::kFieldError, "GatherCopy", json::Object{{"runs", gather->runs}}, json::Array{true},
                             "GatherCopy: a stepped gather loads whole runs, got runs=False; give it runs=True or no "
                             "stepped");
  }
  if (gather->patch && (!gather->stepped || contiguous != "k")) {
    throw errors::FieldError(errors::kFieldError, "GatherCopy", json::Object{{"patch", "a patch"}}, nullptr,
                             "GatherCopy: a patch masks a stepped gather's units along k, got a patch without stepped "
                             "or contiguous 'rows'; give it stepped and contiguous 'k' or no patch");
  }
  if (gather->stepped && (gather->extent <= 0 || gather->extent > kUnchecked)) {
    throw errors::FieldError(errors::kFieldError, "GatherCopy", json::Object{{"extent", gather->extent}}, nullptr,
                             "GatherCopy: expected a stepped gather's extent in 1 .. " + std::to_string(kUnchecked) +
                                 " bytes, got " + std::to_string(gather->extent));
  }
  return contiguous;
}

}  // namespace

GatherCopy::GatherCopy(Value* src, ir::Operand ld, std::string contiguous, KMajor layout, const ir::Type* elem,
                       int threads, std::optional<Gather> gather)
    // NOLINTNEXTLINE(bugprone-unchecked-optional-access): checked() threw if it is empty
    : TileCopy(src, ld, checked(gather, std::move(contiguous)), layout, elem, threads), gather_(*gather) {}

// The element at (row, k), zero where it is padding: a load from a safe address (index 0) there.
Value* GatherCopy::element(KernelBuilder& b, Value* row, Value* k) const {
  const auto [index, valid] = gather_.address(b, row, k);
  if (valid == nullptr) {
    Value* bytes = b.mul(index, elem_->nbytes());
    Value* p = b.offset(src_, bytes);
    return b.load(p, elem_);
  }
  Value* safe = b.select(valid, index, 0);
  Value* bytes = b.mul(safe, elem_->nbytes());
  Value* p = b.offset(src_, bytes);
  Value* value = b.load(p, elem_);
  Value* z = zero(b);
  return b.select(valid, value, z);
}

Value* GatherCopy::unit(KernelBuilder& b, Value* row, Value* k, Value* rsrc) const {
  if (gather_.runs) {
    const auto [index, valid] = gather_.address(b, row, k);
    Value* bytes = b.mul(index, elem_->nbytes());
    if (valid == nullptr) {
      Value* p = b.offset(src_, bytes);
      return b.load(p, vector_type());
    }
    Value* at = b.select(valid, bytes, kUnchecked);  // past the buffer where it is padding: zeros, no select after
    return b.buffer_load(rsrc, at, vector_type());
  }
  std::vector<Value*> elems;
  for (int j = 0; j < layout_.unit_elems(); ++j) {
    if (contiguous_ == "k") {
      Value* kj = b.add(k, j);
      elems.push_back(element(b, row, kj));
    } else {
      Value* rj = b.add(row, j);
      elems.push_back(element(b, rj, k));
    }
  }
  return b.build(elems);
}

std::vector<Value*> GatherCopy::load(KernelBuilder& b, ir::Operand row0, ir::Operand k0, Value* tid) const {
  std::vector<Value*> regs;
  if (gather_.stepped) {
    Value* rsrc = b.buffer_rsrc(src_, gather_.extent);
    // The callback's k0 is always a value (the first tile's 0 made one).
    const auto* first = std::get_if<std::int64_t>(&k0.v);
    Value* step = first != nullptr ? b.const_(*first, ir::scalar("i32")) : std::get<Value*>(k0.v);
    for (Value* q : lane_moves(b, tid)) {
      const auto [row, k] = move(b, q);
      Value* r = b.add(row0, row);
      Value* at = gather_.stepped(b, r, step, k);
      regs.push_back(b.buffer_load(rsrc, at, vector_type()));
      if (gather_.patch) {
        const ir::Type* words = ir::vector(ir::scalar("i32"), layout_.unit_elems() * elem_->nbytes() / 4);
        Value* bits = b.bitcast(regs.back(), words);
        Value* mask = gather_.patch(b, r, k);
        Value* masked = b.and_(bits, mask);
        regs.back() = b.bitcast(masked, vector_type());
      }
      if (contiguous_ == "rows") {  // two units per move, k and k + 1, as TileCopy::store takes them
        Value* next = b.add(k, 1);
        Value* next_at = gather_.stepped(b, r, step, next);
        regs.push_back(b.buffer_load(rsrc, next_at, vector_type()));
      }
    }
    return regs;
  }
  Value* rsrc = gather_.runs ? b.buffer_rsrc(src_, kUnchecked) : nullptr;
  for (Value* q : lane_moves(b, tid)) {
    const auto [row, k] = move(b, q);
    Value* r = b.add(row0, row);
    Value* kk = b.add(k0, k);
    regs.push_back(unit(b, r, kk, rsrc));
    if (contiguous_ == "rows") {  // two units per move, k and k + 1, as TileCopy::store takes them
      Value* next = b.add(kk, 1);
      regs.push_back(unit(b, r, next, rsrc));
    }
  }
  return regs;
}

void GatherCopy::guarded(KernelBuilder& b, Value* lds, ir::Operand row0, ir::Operand k0, ir::Operand rows,
                         ir::Operand ks, Value* tid) const {
  const int n_rows = layout_.rows(), n_k = layout_.k();
  Value* z = zero(b);
  b.for_range(tid, n_rows * n_k, threads_, {}, [&](const ir::Loop& loop) {
    Value* row = b.udiv(loop.iv, n_k);
    Value* k = b.urem(loop.iv, n_k);
    Value* r = b.add(row0, row);
    Value* kk = b.add(k0, k);
    Value* in_rows = b.cmp("lt", r, rows);
    Value* in_k = b.cmp("lt", kk, ks);
    Value* inside = b.and_(in_rows, in_k);
    const std::vector<Value*> got =
        b.if_(inside, {elem_}, [&] { b.yield_({element(b, r, kk)}); }, [&] { b.yield_({z}); });
    Value* to = layout_.offset(b, row, k);
    Value* p = b.offset(lds, to);
    b.store(p, got[0]);
  });
}

}  // namespace rocke::tile
