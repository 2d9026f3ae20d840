// The LDS layout of a GEMM operand tile, mirroring platform/tile/lds.py:
// K-major, XOR-swizzled by 16-byte units (lds.py says how and why).
//
//   KMajor lay(128, 32, 2, 128);      // rows, k, element bytes, line bytes
//   Value* at = lay.offset(b, row, k);
#pragma once

#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/core.h"

namespace rocke::tile {

inline constexpr int kUnit = 16;  // bytes: the widest LDS access (ds_read_b128); lds.UNIT

// What every tile layout is (lds._Rows): `rows` rows of `k` elements of
// `elem_bytes`, each row pitch() bytes apart (its elements, then `pad`
// bytes), read and written in 16-byte units.
class Rows {
 public:
  int rows() const { return rows_; }
  int k() const { return k_; }
  int elem_bytes() const { return elem_bytes_; }
  int pitch() const { return k_ * elem_bytes_ + pad_; }
  std::int64_t nbytes() const { return std::int64_t{rows_} * pitch(); }
  int unit_elems() const { return kUnit / elem_bytes_; }

 protected:
  Rows(int rows, int k, int elem_bytes, int pad = 0) : rows_(rows), k_(k), elem_bytes_(elem_bytes), pad_(pad) {}

  int rows_, k_, elem_bytes_, pad_;
};

class KMajor : public Rows {
 public:
  // errors::FieldError, with Python's facts, unless rows are
  // whole units and a line a power of two units.
  KMajor(int rows, int k, int elem_bytes, int line_bytes);

  int line_bytes() const { return line_bytes_; }
  // Rows after which the swizzle repeats.
  int period_rows() const;

  // Byte offsets of (row + d, k) for each d in `steps`, as i32 values: one
  // computation, plus a constant for every d that is a multiple of the period.
  std::vector<ir::Value*> offsets(ir::KernelBuilder& b, ir::Value* row, ir::Operand k,
                                  const std::vector<int>& steps) const;
  // Byte offset of element (row, k), as an i32 value; `k` an IR value or an int.
  ir::Value* offset(ir::KernelBuilder& b, ir::Value* row, ir::Operand k) const;
  // (row, k) of the unit stored in 16-byte slot `slot`: offset's inverse.
  std::pair<ir::Value*, ir::Value*> unit_at(ir::KernelBuilder& b, ir::Value* slot) const;

 private:
  int units_row() const { return k_ * elem_bytes_ / kUnit; }
  int units_line() const { return line_bytes_ / kUnit; }
  int period_lines() const;
  ir::Value* swizzle(ir::KernelBuilder& b, ir::Value* line) const;

  int line_bytes_;
};

// Rows of `k` contiguous elements, each followed by `pad` bytes, unswizzled
// (lds.Padded): the B tile as k-rows x n for transposed fragment reads.
class Padded : public Rows {
 public:
  Padded(int rows, int k, int elem_bytes, int pad) : Rows(rows, k, elem_bytes, pad) {}

  // Byte offset of element (row, k): row * pitch + k * elem_bytes.
  ir::Value* offset(ir::KernelBuilder& b, ir::Value* row, ir::Operand k) const;
};

// Rows of `k` contiguous elements, each a whole number of lines, their
// 16-byte units XOR-swizzled in runs of `run` bytes (lds.RowXor, which says
// why): the B tile as k-rows x n, filled by direct-to-LDS loads.
class RowXor : public Rows {
 public:
  // errors::FieldError, with Python's facts, unless rows are
  // whole lines and a line whole runs of whole units.
  RowXor(int rows, int k, int elem_bytes, int line_bytes, int run);

  // Byte offset of element (row, k).
  ir::Value* offset(ir::KernelBuilder& b, ir::Value* row, ir::Operand k) const;
  // (row, k) of the unit stored in 16-byte slot `slot`.
  std::pair<ir::Value*, ir::Value*> unit_at(ir::KernelBuilder& b, ir::Value* slot) const;

 private:
  ir::Value* swizzle(ir::KernelBuilder& b, ir::Value* row) const;

  int line_bytes_, run_;
};

// A layout a DirectCopy fills slot by slot (copy.py takes any with unit_at).
class SlotLayout {
 public:
  // NOLINTBEGIN(misc-explicit-constructor): implicit on purpose: as in Python, any such layout is one.
  SlotLayout(const KMajor& layout) : v_(layout) {}
  SlotLayout(const RowXor& layout) : v_(layout) {}
  // NOLINTEND(misc-explicit-constructor)

  std::int64_t nbytes() const {
    return std::visit([](const auto& l) { return l.nbytes(); }, v_);
  }
  std::pair<ir::Value*, ir::Value*> unit_at(ir::KernelBuilder& b, ir::Value* slot) const {
    return std::visit([&](const auto& l) { return l.unit_at(b, slot); }, v_);
  }

 private:
  std::variant<KMajor, RowXor> v_;
};

// Any layout, as a TileCopy uses it (copy.py takes any object with these).
class TileLayout {
 public:
  // NOLINTBEGIN(misc-explicit-constructor): implicit on purpose: as in Python, any layout is one.
  TileLayout(const KMajor& layout) : v_(layout) {}
  TileLayout(const Padded& layout) : v_(layout) {}
  TileLayout(const RowXor& layout) : v_(layout) {}
  // NOLINTEND(misc-explicit-constructor)

  int rows() const {
    return std::visit([](const auto& l) { return l.rows(); }, v_);
  }
  int k() const {
    return std::visit([](const auto& l) { return l.k(); }, v_);
  }
  int unit_elems() const {
    return std::visit([](const auto& l) { return l.unit_elems(); }, v_);
  }
  ir::Value* offset(ir::KernelBuilder& b, ir::Value* row, ir::Operand k) const {
    return std::visit([&](const auto& l) { return l.offset(b, row, k); }, v_);
  }

 private:
  std::variant<KMajor, Padded, RowXor> v_;
};

}  // namespace rocke::tile
