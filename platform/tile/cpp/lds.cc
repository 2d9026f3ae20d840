#include "platform/tile/cpp/lds.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"

namespace rocke::tile {

using ir::Value;

KMajor::KMajor(int rows, int k, int elem_bytes, int line_bytes) : Rows(rows, k, elem_bytes), line_bytes_(line_bytes) {
  const int unit = kUnit;
  if ((k * elem_bytes) % unit) {
    throw errors::FieldError(errors::kFieldError, "KMajor", json::Object{{"elem_bytes", elem_bytes}, {"k", k}}, nullptr,
                             "KMajor: expected rows of whole " + std::to_string(unit) + "-byte units, got " +
                                 std::to_string(k) + " elements of " + std::to_string(elem_bytes) + " bytes");
  }
  const int units = line_bytes / unit;
  if (line_bytes % unit || (units & (units - 1))) {  // the XOR must stay inside the line
    throw errors::FieldError(errors::kFieldError, "KMajor", json::Object{{"line_bytes", line_bytes}}, nullptr,
                             "KMajor: expected a line of a power of two " + std::to_string(unit) + "-byte units, got " +
                                 std::to_string(line_bytes) + " bytes");
  }
}

int KMajor::period_lines() const { return std::max(units_row(), unit_elems()); }

int KMajor::period_rows() const { return std::max(1, period_lines() * units_line() / units_row()); }

Value* KMajor::swizzle(ir::KernelBuilder& b, Value* line) const {
  Value* x = b.urem(line, period_lines());
  Value* twice = b.shl(x, 1);
  Value* mixed = b.xor_(x, twice);
  return b.urem(mixed, units_line());
}

std::vector<Value*> KMajor::offsets(ir::KernelBuilder& b, Value* row, ir::Operand k,
                                    const std::vector<int>& steps) const {
  Value* base = offset(b, row, k);
  std::vector<Value*> out;
  for (int d : steps) {
    if (d % period_rows() == 0) {
      out.push_back(b.add(base, d * k_ * elem_bytes_));
    } else {
      Value* shifted = b.add(row, d);
      out.push_back(offset(b, shifted, k));
    }
  }
  return out;
}

Value* KMajor::offset(ir::KernelBuilder& b, Value* row, ir::Operand k) const {
  Value* byte_k = b.mul(k, elem_bytes_);
  Value* row_units = b.mul(row, units_row());
  Value* k_units = b.udiv(byte_k, kUnit);
  Value* unit = b.add(row_units, k_units);  // flat unit index
  Value* line = b.udiv(unit, units_line());
  Value* s = swizzle(b, line);
  Value* in_line = b.urem(unit, units_line());
  Value* inside = b.xor_(in_line, s);
  Value* line_at = b.mul(line, line_bytes_);
  Value* unit_at = b.mul(inside, kUnit);
  Value* start = b.add(line_at, unit_at);
  Value* byte = b.urem(byte_k, kUnit);
  return b.add(start, byte);
}

std::pair<Value*, Value*> KMajor::unit_at(ir::KernelBuilder& b, Value* slot) const {
  Value* line = b.udiv(slot, units_line());
  Value* line_start = b.mul(line, units_line());
  Value* in_line = b.urem(slot, units_line());
  Value* s = swizzle(b, line);
  Value* inside = b.xor_(in_line, s);  // the XOR is its own inverse
  Value* unit = b.add(line_start, inside);
  Value* row = b.udiv(unit, units_row());
  Value* k_unit = b.urem(unit, units_row());
  return {row, b.mul(k_unit, unit_elems())};
}

RowXor::RowXor(int rows, int k, int elem_bytes, int line_bytes, int run)
    : Rows(rows, k, elem_bytes), line_bytes_(line_bytes), run_(run) {
  const int row = k * elem_bytes;
  if (row % line_bytes || line_bytes % run || run % kUnit) {
    throw errors::FieldError(errors::kFieldError, "RowXor",
                             json::Object{{"line_bytes", line_bytes}, {"row_bytes", row}, {"run", run}}, nullptr,
                             "RowXor: expected rows of whole " + std::to_string(line_bytes) +
                                 "-byte lines and a line of whole runs of whole " + std::to_string(kUnit) +
                                 "-byte units, got rows of " + std::to_string(row) + " bytes and runs of " +
                                 std::to_string(run));
  }
}

Value* RowXor::swizzle(ir::KernelBuilder& b, Value* row) const {
  Value* r = b.urem(row, line_bytes_ / run_);
  return b.mul(r, run_ / kUnit);
}

Value* RowXor::offset(ir::KernelBuilder& b, Value* row, ir::Operand k) const {
  Value* byte_k = b.mul(k, elem_bytes_);
  Value* k_unit = b.udiv(byte_k, kUnit);
  Value* s = swizzle(b, row);
  Value* unit = b.xor_(k_unit, s);
  Value* row_at = b.mul(row, k_ * elem_bytes_);
  Value* unit_at = b.mul(unit, kUnit);
  Value* start = b.add(row_at, unit_at);
  Value* byte = b.urem(byte_k, kUnit);
  return b.add(start, byte);
}

std::pair<Value*, Value*> RowXor::unit_at(ir::KernelBuilder& b, Value* slot) const {
  const int units_row = k_ * elem_bytes_ / kUnit;
  Value* row = b.udiv(slot, units_row);
  Value* in_row = b.urem(slot, units_row);
  Value* s = swizzle(b, row);
  Value* unit = b.xor_(in_row, s);
  return {row, b.mul(unit, unit_elems())};
}

Value* Padded::offset(ir::KernelBuilder& b, Value* row, ir::Operand k) const {
  Value* row_at = b.mul(row, pitch());
  Value* k_at = b.mul(k, elem_bytes_);
  return b.add(row_at, k_at);
}

}  // namespace rocke::tile
