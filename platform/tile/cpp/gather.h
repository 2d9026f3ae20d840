// A GEMM operand tile gathered from global memory, its addresses from a
// callback, mirroring platform/tile/gather.py op for op (gather.py says what
// the two load paths are for and why a gathered tile is never unguarded).
//
//   Gather g{[&](KernelBuilder& b, Value* row, Value* k) { ...; return std::pair{index, valid}; }, true};
//   GatherCopy copy(src, "k", KMajor(128, 32, 2, 128), scalar("f16"), 256, g);
//
// ORDER (platform/ir/cpp/builder.h): the callback makes its ops in Python's
// order, each builder call its own statement.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/core.h"
#include "platform/tile/cpp/copy.h"
#include "platform/tile/cpp/lds.h"

namespace rocke::tile {

// gather.PADDING_BIT: a stepped offset with this bit set is past any extent.
inline constexpr int kPaddingBit = 31;

// gather.Gather. `address` gives (element index i32, valid i1), valid
// nullptr where no element is padding (Python's None). `stepped`, optional
// (gather.py says what for), gives the byte offset of unit (row, k0 + k),
// past `extent` in the padding; k0 a value (load makes the first tile's 0 one).
// `patch`, `fast_from` and `fast_to` are for runs padded only in part (gather.py).
struct Gather {
  std::function<std::pair<ir::Value*, ir::Value*>(ir::KernelBuilder&, ir::Value* row, ir::Value* k)> address;
  bool runs;  // aligned 16-byte runs along `contiguous` are consecutive in memory and share their validity
  std::string contiguous = "k";  // the index runs follow: "k" or "rows"
  // Its {} is for GCC's -Wmissing-field-initializers, where a family aggregate-initialises a Gather without it.
  // NOLINTNEXTLINE(readability-redundant-member-init): GCC wants it (above)
  std::function<ir::Value*(ir::KernelBuilder&, ir::Value* row, ir::Value* k0, ir::Value* k)> stepped{};
  std::int64_t extent = 0;  // bytes of the buffer `stepped`'s offsets index, 1 .. kUnchecked
  // Optional, with stepped along k: the i32 words mask `load` ANDs with unit (row, k0 + k), fixed over the loop.
  // NOLINTNEXTLINE(readability-redundant-member-init): GCC wants it (above)
  std::function<ir::Value*(ir::KernelBuilder&, ir::Value* row, ir::Value* k)> patch{};
  std::int64_t fast_from = 0;  // the first row `load` may read: a block before it goes through `guarded`
  std::int64_t fast_to = 0;    // rows from it on `load` may not read (0: none): a block past it goes through `guarded`
};

// gather.GatherCopy: TileCopy's moves and LDS writes (k- or rows-contiguous,
// as the gather's runs); global addresses from `gather`.
// errors::FieldError, with Python's facts, for no gather (Python's None),
// a contiguous other than the gather's, or TileCopy's own.
class GatherCopy : public TileCopy {
 public:
  GatherCopy(ir::Value* src, ir::Operand ld, std::string contiguous, KMajor layout, const ir::Type* elem, int threads,
             std::optional<Gather> gather);

  // Registers holding the tile at (row0, k0), which lies inside the problem; padding reads zero.
  std::vector<ir::Value*> load(ir::KernelBuilder& b, ir::Operand row0, ir::Operand k0, ir::Value* tid) const override;
  // Copies the tile at (row0, k0) element by element; zero outside rows x ks and in the padding.
  void guarded(ir::KernelBuilder& b, ir::Value* lds, ir::Operand row0, ir::Operand k0, ir::Operand rows, ir::Operand ks,
               ir::Value* tid) const override;

 private:
  // The element at (row, k), zero where it is padding (_element).
  ir::Value* element(ir::KernelBuilder& b, ir::Value* row, ir::Value* k) const;
  // One 16-byte unit from (row, k) on, along `contiguous` (_unit): a run with a padding mask
  // through `rsrc`, a buffer of kUnchecked bytes over the source, from kUnchecked (zeros) there.
  ir::Value* unit(ir::KernelBuilder& b, ir::Value* row, ir::Value* k, ir::Value* rsrc) const;

  Gather gather_;
};

}  // namespace rocke::tile
