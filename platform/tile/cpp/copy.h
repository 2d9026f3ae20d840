// Cooperative copies of a GEMM operand tile from global memory to LDS,
// mirroring platform/tile/copy.py op for op (copy.py says what the two paths
// are for): `load` then `store` for a whole tile, `guarded` for an edge tile.
//
//   TileCopy copy(a, lda, "k", KMajor(128, 32, 2, 128), scalar("f16"), 256);
//   auto regs = copy.load(b, row0, 0, tid);
//   copy.store(b, lds, regs, tid);
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/core.h"
#include "platform/tile/cpp/lds.h"

namespace rocke::tile {

// copy.UNCHECKED: DirectCopy's buffer spans every i32 byte offset, and an
// edge unit outside the problem reads zeros from it (copy.py says why).
inline constexpr int kUnchecked = 0x7FFFFFFF;

// copy.RUNS: the (k_run, run) shapes of a rows-contiguous copy, the default
// first (the only one with edge_units or a k-contiguous copy).
inline constexpr std::pair<int, int> kRuns[] = {{2, 0}, {2, 4}, {4, 0}};

class TileCopy {
 public:
  // `contiguous`: "k" or "rows", which dimension is contiguous in global
  // memory; `edge_units`: guarded() reads whole 16-byte units where it can
  // (copy.py says when); `k_run`, `run`: a rows-contiguous copy's consecutive
  // k per LDS write and rows per load (0: a unit's), one of kRuns.
  // errors::FieldError, with Python's facts, for a bad one or a tile the
  // threads cannot share.
  TileCopy(ir::Value* src, ir::Operand ld, std::string contiguous, TileLayout layout, const ir::Type* elem, int threads,
           bool edge_units = false, int k_run = 2, int run = 0);
  virtual ~TileCopy() = default;

  // Registers holding the whole tile at (row0, k0) of the source: 16-byte
  // loads, unguarded.
  // Virtual: a GatherCopy (gather.h) loads through its address callback.
  virtual std::vector<ir::Value*> load(ir::KernelBuilder& b, ir::Operand row0, ir::Operand k0, ir::Value* tid) const;
  // The types of load()'s registers.
  std::vector<const ir::Type*> reg_types() const;
  // Registers of load()'s types, all zero.
  std::vector<ir::Value*> zeros(ir::KernelBuilder& b) const;
  // Writes load()'s registers to LDS in the K-major layout.
  void store(ir::KernelBuilder& b, ir::Value* lds, const std::vector<ir::Value*>& regs, ir::Value* tid) const;
  // Copies the tile at (row0, k0) to LDS; zero outside rows x ks: element
  // by element, or with edge_units by 16-byte units through a buffer where
  // each lies wholly inside or outside (copy.py says when).
  virtual void guarded(ir::KernelBuilder& b, ir::Value* lds, ir::Operand row0, ir::Operand k0, ir::Operand rows,
                       ir::Operand ks, ir::Value* tid) const;

 protected:
  int count() const;
  int run() const;  // elements of one load: a unit's, or run_
  std::vector<ir::Value*> lane_moves(ir::KernelBuilder& b, ir::Value* tid) const;
  std::pair<ir::Value*, ir::Value*> move(ir::KernelBuilder& b, ir::Value* q) const;
  const ir::Type* vector_type() const;
  ir::Value* zero(ir::KernelBuilder& b) const;
  // copy.TileCopy._whole_units: a constant (true, false) or an i1 value.
  std::variant<bool, ir::Value*> whole_units(ir::KernelBuilder& b, ir::Operand rows, ir::Operand ks) const;
  void units(ir::KernelBuilder& b, ir::Value* lds, ir::Operand row0, ir::Operand k0, ir::Operand rows, ir::Operand ks,
             ir::Value* tid) const;
  void elements(ir::KernelBuilder& b, ir::Value* lds, ir::Operand row0, ir::Operand k0, ir::Operand rows,
                ir::Operand ks, ir::Value* tid) const;

  ir::Value* src_;
  ir::Operand ld_;
  std::string contiguous_;
  TileLayout layout_;
  const ir::Type* elem_;
  int threads_;
  bool edge_units_;
  int k_run_;
  int run_;
};

// What DirectCopy::issue needs, the same for every tile (copy.DirectCopy.lanes):
// the source as a buffer, and the byte offset from the tile's origin of the
// unit this lane fetches in each round.
struct DirectLanes {
  ir::Value* rsrc;
  std::vector<ir::Value*> offsets;
};

// A whole tile straight from global memory to LDS with buffer.load_to_lds
// (copy.DirectCopy, which says how lanes map to LDS slots).
//
//   DirectCopy copy(a, lda, KMajor(128, 32, 2, 256), scalar("f16"), 256);
//   DirectLanes lanes = copy.lanes(b, tid);
//   copy.issue(b, lds, lanes, row0, k0, wave_at);
class DirectCopy {
 public:
  // errors::FieldError, with Python's facts, unless the tile is
  // whole rounds of 16 bytes a lane.
  DirectCopy(ir::Value* src, ir::Operand ld, SlotLayout layout, const ir::Type* elem, int threads);

  int rounds() const;
  // Computed once, before the loop (copy.DirectCopy.lanes).
  DirectLanes lanes(ir::KernelBuilder& b, ir::Value* tid) const;
  // Starts copying the tile at (row0, k0) to `lds`; `wave_at` is the byte
  // offset of this wave's first slot (wave-uniform); the tile's origin is
  // the loads' wave-uniform offset. Asynchronous: a barrier must come
  // between this and reading the tile.
  void issue(ir::KernelBuilder& b, ir::Value* lds, const DirectLanes& lanes, ir::Operand row0, ir::Operand k0,
             ir::Value* wave_at) const;

 private:
  ir::Value* src_;
  ir::Operand ld_;
  SlotLayout layout_;
  const ir::Type* elem_;
  int threads_;
};

}  // namespace rocke::tile
