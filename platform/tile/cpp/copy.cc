#include "platform/tile/cpp/copy.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/types.h"

namespace rocke::tile {

namespace {

using ir::KernelBuilder;
using ir::Value;

// copy.CONTIGUOUS
constexpr std::string_view kContiguous[] = {"k", "rows"};

}  // namespace

TileCopy::TileCopy(Value* src, ir::Operand ld, std::string contiguous, TileLayout layout, const ir::Type* elem,
                   int threads, bool edge_units, int k_run, int run)
    : src_(src),
      ld_(ld),
      contiguous_(std::move(contiguous)),
      layout_(layout),
      elem_(elem),
      threads_(threads),
      edge_units_(edge_units),
      k_run_(k_run),
      run_(run) {
  if (contiguous_ != kContiguous[0] && contiguous_ != kContiguous[1]) {
    throw errors::FieldError(errors::kFieldError, "TileCopy", json::Object{{"contiguous", contiguous_}},
                             json::Array{std::string(kContiguous[0]), std::string(kContiguous[1])},
                             "TileCopy: expected contiguous to be one of " + std::string(kContiguous[0]) + ", " +
                                 std::string(kContiguous[1]) + ", got " + json::quote(contiguous_));
  }
  const std::pair<int, int> shape_runs{k_run_, run_};
  const bool listed = std::find(std::begin(kRuns), std::end(kRuns), shape_runs) != std::end(kRuns);
  if (!listed || (shape_runs != kRuns[0] && (contiguous_ != "rows" || edge_units_))) {
    std::string among;
    json::Array allowed;
    for (const auto& [kr, r] : kRuns) {
      among += (among.empty() ? "" : ", ") + std::to_string(kr) + "/" + std::to_string(r);
      allowed.emplace_back(json::Array{kr, r});
    }
    throw errors::FieldError(errors::kFieldError, "TileCopy",
                             json::Object{{"contiguous", contiguous_}, {"k_run", k_run_}, {"run", run_}}, allowed,
                             "TileCopy: expected k_run/run among " + among + " (all but " + among.substr(0, 3) +
                                 " only rows-contiguous without edge_units), got " + std::to_string(k_run_) + "/" +
                                 std::to_string(run_) + " for " + json::quote(contiguous_));
  }
  const int per = this->run();
  const std::string shape = std::to_string(layout_.rows()) + " x " + std::to_string(layout_.k());
  if (contiguous_ == "rows" && (layout_.rows() % per || layout_.k() % k_run_)) {
    throw errors::FieldError(errors::kFieldError, "TileCopy",
                             json::Object{{"k", layout_.k()}, {"rows", layout_.rows()}}, nullptr,
                             "TileCopy: a rows-contiguous tile needs rows a multiple of " + std::to_string(per) +
                                 " and k a multiple of " + std::to_string(k_run_) + ", got " + shape);
  }
  if (count() % threads_ && threads_ % count()) {
    throw errors::FieldError(errors::kFieldError, "TileCopy",
                             json::Object{{"k", layout_.k()}, {"rows", layout_.rows()}, {"threads", threads_}}, nullptr,
                             "TileCopy: expected the tile's " + std::to_string(count()) +
                                 " moves to divide or be a multiple of the " + std::to_string(threads_) +
                                 " threads, got " + shape);
  }
}

int TileCopy::run() const { return run_ != 0 ? run_ : layout_.unit_elems(); }

// Moves of the whole tile: vectors (k-contiguous) or k_run vectors (rows-contiguous).
int TileCopy::count() const {
  const int per_move = run() * (contiguous_ == "k" ? 1 : k_run_);
  return layout_.rows() * layout_.k() / per_move;
}

// This lane's move indices; where the tile has fewer moves than threads, the
// extra lanes repeat the last move (same data to the same place).
std::vector<Value*> TileCopy::lane_moves(KernelBuilder& b, Value* tid) const {
  if (count() < threads_) return {b.min(tid, count() - 1)};
  std::vector<Value*> out;
  for (int i = 0; i < count() / threads_; ++i) out.push_back(b.add(tid, i * threads_));
  return out;
}

// (row, k) of move q: one vector (k-contiguous) or k_run k-rows.
// copy.py's _moves is a generator: a caller interleaves each move's ops with
// its own, as Python does.
std::pair<Value*, Value*> TileCopy::move(KernelBuilder& b, Value* q) const {
  const int per = run(), k = layout_.k();
  if (contiguous_ == "k") {
    Value* row = b.udiv(q, k / per);
    Value* r = b.urem(q, k / per);
    return {row, b.mul(r, per)};
  }
  const int runs = k / k_run_;  // a wave's lanes take all k runs of a few row blocks (lds.py: why)
  Value* d = b.udiv(q, runs);
  Value* row = b.mul(d, per);
  Value* r = b.urem(q, runs);
  return {row, b.mul(r, k_run_)};
}

const ir::Type* TileCopy::vector_type() const { return ir::vector(elem_, run()); }

Value* TileCopy::zero(KernelBuilder& b) const { return elem_->is_float() ? b.const_(0.0, elem_) : b.const_(0, elem_); }

std::vector<Value*> TileCopy::load(KernelBuilder& b, ir::Operand row0, ir::Operand k0, Value* tid) const {
  const int eb = elem_->nbytes();
  const ir::Type* vec = vector_type();
  std::vector<Value*> regs;
  for (Value* q : lane_moves(b, tid)) {
    const auto [row, k] = move(b, q);
    if (contiguous_ == "k") {
      Value* r = b.add(row0, row);
      Value* line = b.mul(r, ld_);
      Value* kk = b.add(k0, k);
      Value* at = b.add(line, kk);
      Value* bytes = b.mul(at, eb);
      Value* p = b.offset(src_, bytes);
      regs.push_back(b.load(p, vec));
    } else {
      Value* kk = b.add(k0, k);
      Value* line = b.mul(kk, ld_);
      Value* r = b.add(row0, row);
      Value* at = b.add(line, r);
      for (int i = 0; i < k_run_; ++i) {
        if (i > 0) at = b.add(at, ld_);
        Value* bytes = b.mul(at, eb);
        Value* p = b.offset(src_, bytes);
        regs.push_back(b.load(p, vec));
      }
    }
  }
  return regs;
}

std::vector<const ir::Type*> TileCopy::reg_types() const {
  const int per_move = contiguous_ == "k" ? 1 : k_run_;
  return std::vector<const ir::Type*>(static_cast<std::size_t>(per_move) * std::max(1, count() / threads_),
                                      vector_type());
}

std::vector<Value*> TileCopy::zeros(KernelBuilder& b) const {
  Value* z = zero(b);
  Value* v = b.build(std::vector<Value*>(static_cast<std::size_t>(run()), z));
  return std::vector<Value*>(reg_types().size(), v);
}

void TileCopy::store(KernelBuilder& b, Value* lds, const std::vector<Value*>& regs, Value* tid) const {
  std::vector<std::pair<Value*, Value*>> moves;  // list(self._moves(...)): every move's ops first
  for (Value* q : lane_moves(b, tid)) moves.push_back(move(b, q));
  if (contiguous_ == "k") {
    for (std::size_t i = 0; i < moves.size() && i < regs.size(); ++i) {  // zip
      Value* at = layout_.offset(b, moves[i].first, moves[i].second);
      Value* p = b.offset(lds, at);
      b.store(p, regs[i]);
    }
    return;
  }
  const auto kr = static_cast<std::size_t>(k_run_);
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const auto [row, k] = moves[i];
    for (int j = 0; j < run(); ++j) {
      std::vector<Value*> xs;
      for (std::size_t n = 0; n < kr; ++n) xs.push_back(b.extract(regs.at(kr * i + n), j));
      Value* run_k = b.build(xs);
      Value* r = b.add(row, j);
      Value* at = layout_.offset(b, r, k);
      Value* p = b.offset(lds, at);
      b.store(p, run_k);
    }
  }
}

void TileCopy::guarded(KernelBuilder& b, Value* lds, ir::Operand row0, ir::Operand k0, ir::Operand rows, ir::Operand ks,
                       Value* tid) const {
  const std::variant<bool, Value*> whole = edge_units_ ? whole_units(b, rows, ks) : std::variant<bool, Value*>(false);
  if (const bool* known = std::get_if<bool>(&whole)) {
    if (*known) {
      units(b, lds, row0, k0, rows, ks, tid);
    } else {
      elements(b, lds, row0, k0, rows, ks, tid);
    }
    return;
  }
  b.if_(
      std::get<Value*>(whole), {}, [&] { units(b, lds, row0, k0, rows, ks, tid); },
      [&] { elements(b, lds, row0, k0, rows, ks, tid); });
}

std::variant<bool, Value*> TileCopy::whole_units(KernelBuilder& b, ir::Operand rows, ir::Operand ks) const {
  const int per = layout_.unit_elems();
  const ir::Operand bound = contiguous_ == "k" ? ks : rows;
  std::vector<ir::Operand> sizes{bound};
  if (bound.v != ld_.v) sizes.push_back(ld_);  // Python's `self.ld is bound`: one value checked once
  for (const ir::Operand& x : sizes) {
    if (const std::int64_t* n = std::get_if<std::int64_t>(&x.v); n != nullptr && *n % per) return false;
  }
  std::vector<Value*> checks;
  for (const ir::Operand& x : sizes) {
    if (std::holds_alternative<std::int64_t>(x.v)) continue;
    Value* r = b.urem(x, per);
    checks.push_back(b.cmp("eq", r, 0));
  }
  if (checks.empty()) return true;
  Value* whole = checks[0];
  for (std::size_t i = 1; i < checks.size(); ++i) whole = b.and_(whole, checks[i]);
  return whole;
}

void TileCopy::units(KernelBuilder& b, Value* lds, ir::Operand row0, ir::Operand k0, ir::Operand rows, ir::Operand ks,
                     Value* tid) const {
  const int eb = elem_->nbytes();
  const ir::Type* vec = vector_type();
  Value* rsrc = b.buffer_rsrc(src_, kUnchecked);
  const auto unit = [&](Value* at, Value* inside) {
    Value* bytes = b.mul(at, eb);
    Value* offset = b.select(inside, bytes, kUnchecked);
    return b.buffer_load(rsrc, offset, vec);
  };
  std::vector<Value*> regs;
  for (Value* q : lane_moves(b, tid)) {
    const auto [row, k] = move(b, q);
    Value* r = b.add(row0, row);
    Value* kk = b.add(k0, k);
    Value* in_rows = b.cmp("lt", r, rows);
    Value* in_k = b.cmp("lt", kk, ks);
    if (contiguous_ == "k") {
      Value* line = b.mul(r, ld_);
      Value* at = b.add(line, kk);
      Value* inside = b.and_(in_rows, in_k);
      regs.push_back(unit(at, inside));
    } else {
      Value* line = b.mul(kk, ld_);
      Value* base = b.add(line, r);
      Value* inside = b.and_(in_rows, in_k);
      regs.push_back(unit(base, inside));
      Value* next = b.add(base, ld_);
      Value* k1 = b.add(kk, 1);
      Value* in_k1 = b.cmp("lt", k1, ks);
      Value* inside1 = b.and_(in_rows, in_k1);
      regs.push_back(unit(next, inside1));
    }
  }
  store(b, lds, regs, tid);
}

void TileCopy::elements(KernelBuilder& b, Value* lds, ir::Operand row0, ir::Operand k0, ir::Operand rows,
                        ir::Operand ks, Value* tid) const {
  const int n_rows = layout_.rows(), n_k = layout_.k();
  Value* z = zero(b);
  b.for_range(tid, n_rows * n_k, threads_, {}, [&](const ir::Loop& loop) {
    Value* q = loop.iv;
    Value* row;
    Value* k;
    Value* at;
    if (contiguous_ == "k") {  // consecutive lanes read consecutive source elements
      row = b.udiv(q, n_k);
      k = b.urem(q, n_k);
      Value* r = b.add(row0, row);
      Value* line = b.mul(r, ld_);
      Value* kk = b.add(k0, k);
      at = b.add(line, kk);
    } else {
      k = b.udiv(q, n_rows);
      row = b.urem(q, n_rows);
      Value* kk = b.add(k0, k);
      Value* line = b.mul(kk, ld_);
      Value* r = b.add(row0, row);
      at = b.add(line, r);
    }
    Value* r = b.add(row0, row);
    Value* in_rows = b.cmp("lt", r, rows);
    Value* kk = b.add(k0, k);
    Value* in_k = b.cmp("lt", kk, ks);
    Value* inside = b.and_(in_rows, in_k);
    const std::vector<Value*> got = b.if_(
        inside, {elem_},
        [&] {
          Value* bytes = b.mul(at, elem_->nbytes());
          Value* p = b.offset(src_, bytes);
          b.yield_({b.load(p, elem_)});
        },
        [&] { b.yield_({z}); });
    Value* to = layout_.offset(b, row, k);
    Value* p = b.offset(lds, to);
    b.store(p, got[0]);
  });
}

DirectCopy::DirectCopy(Value* src, ir::Operand ld, SlotLayout layout, const ir::Type* elem, int threads)
    : src_(src), ld_(ld), layout_(layout), elem_(elem), threads_(threads) {
  const std::int64_t round = std::int64_t{threads_} * kUnit;
  if (layout_.nbytes() % round) {
    throw errors::FieldError(
        errors::kFieldError, "DirectCopy", json::Object{{"nbytes", layout_.nbytes()}, {"threads", threads_}}, nullptr,
        "DirectCopy: expected a tile of whole " + std::to_string(round) + "-byte rounds (" + std::to_string(threads_) +
            " lanes of " + std::to_string(kUnit) + " bytes), got " + std::to_string(layout_.nbytes()) + " bytes");
  }
}

int DirectCopy::rounds() const { return static_cast<int>(layout_.nbytes() / (std::int64_t{threads_} * kUnit)); }

DirectLanes DirectCopy::lanes(KernelBuilder& b, Value* tid) const {
  DirectLanes out;
  for (int r = 0; r < rounds(); ++r) {
    Value* slot = b.add(tid, r * threads_);
    auto [row, k] = layout_.unit_at(b, slot);
    Value* line = b.mul(row, ld_);
    Value* at = b.add(line, k);
    out.offsets.push_back(b.mul(at, elem_->nbytes()));
  }
  out.rsrc = b.buffer_rsrc(src_, kUnchecked);
  return out;
}

void DirectCopy::issue(KernelBuilder& b, Value* lds, const DirectLanes& lanes, ir::Operand row0, ir::Operand k0,
                       Value* wave_at) const {
  Value* line = b.mul(row0, ld_);
  Value* at = b.add(line, k0);
  Value* origin = b.mul(at, elem_->nbytes());
  for (std::size_t r = 0; r < lanes.offsets.size(); ++r) {
    Value* slot = b.add(wave_at, static_cast<int>(r) * threads_ * kUnit);
    Value* dst = b.offset(lds, slot);
    b.buffer_load_to_lds(lanes.rsrc, lanes.offsets[r], origin, dst);
  }
}

}  // namespace rocke::tile
