#include "platform/tile/cpp/gemm.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <utility>

#include "platform/arch/cpp/arch.h"
#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/types.h"
#include "platform/lower/cpp/lds_ops_data.h"
#include "platform/tile/cpp/copy.h"
#include "platform/tile/cpp/gather.h"
#include "platform/tile/cpp/gemm_data.h"
#include "platform/tile/cpp/lds.h"

namespace rocke::tile {

namespace {

using ir::KernelBuilder;
using ir::Value;

// gemm.LAYOUTS, in Python's order (an error's allowed values).
constexpr std::string_view kLayouts[] = {"row", "col"};

template <std::size_t N>
bool among(std::string_view x, const std::string_view (&table)[N]) {
  return std::find(std::begin(table), std::end(table), x) != std::end(table);
}

// `table` as an error's allowed values.
template <std::size_t N>
json::Array allowed(const std::string_view (&table)[N]) {
  json::Array out;
  for (std::string_view x : table) out.emplace_back(std::string(x));
  return out;
}

// `table` as a message lists it: "row, col".
template <std::size_t N>
std::string listed(const std::string_view (&table)[N]) {
  std::string out;
  for (std::string_view x : table) out += (out.empty() ? "" : ", ") + std::string(x);
  return out;
}

// fp8 is storage-only (it cannot be a loop-carried or yielded value): the
// copies move its bytes as i8; the fragment reads from LDS take it as fp8
// (gemm._BITS).
const ir::Type* bits_of(const ir::Type* elem) {
  for (std::string_view fp8 : {"f8e4m3", "f8e5m2"}) {
    if (elem == ir::scalar(fp8)) return ir::scalar("i8");
  }
  return elem;
}

// Whether `generation`'s fast loop pins the prefetch before the matrix work
// (gemm.json's prefetch_first; gemm.PREFETCH_FIRST says why): there the loads
// end with a gpu.sched_barrier and the loop's barriers order LDS only.
bool prefetch_first(std::string_view generation) {
  return std::ranges::any_of(data::tile_gemm::kPrefetchFirst,
                             [&](const auto& row) { return row.generation == generation; });
}

// Whether `generation`'s fast loop also pins its matrix work before the LDS
// writes (gemm.json's matrix_first; gemm.MATRIX_FIRST says why): there both
// the loads and the matrix work end with a gpu.sched_barrier.
bool matrix_first(std::string_view generation) {
  return std::ranges::any_of(data::tile_gemm::kMatrixFirst,
                             [&](const auto& row) { return row.generation == generation; });
}

// gfx950's transposed B fragment reads (gemm.py's transpose_b): lanes
// exchange data in groups of lds_ops.json's group lanes, and the B tile's
// k-rows are padded by gemm.json's transpose_pad bytes so the reads of a
// group's 4 rows fall on distinct banks.
constexpr int kTransposeGroup = [] {
  for (const auto& row : rocke::data::lds_ops::kOps) {
    if (row.name == "mem.load_transpose") return row.group.value();
  }
  // Reached only if lds_ops.json lost the op: in a constant expression, a compile error.
  throw std::logic_error("lds_ops.json has no mem.load_transpose");
}();
constexpr int kTransposePad = data::tile_gemm::kTransposePad;

// Whether B's fragments are read transposed (gemm._transpose_b): B
// row-major and not gathered, 16-bit elements, an arch with mem.load_transpose, and fragments
// of whole 16-lane groups and whole 4-k reads.
bool transpose_b(std::string_view arch, const Operands& ops, int elem_bytes, const Fragment& frag, int span) {
  for (const auto& row : rocke::data::lds_ops::kOps) {
    if (row.name != "mem.load_transpose") continue;
    const bool has = std::find(row.archs.begin(), row.archs.end(), arch) != row.archs.end();
    return has && !ops.b_gather && ops.b_layout == "row" && elem_bytes == 2 && frag.rows % kTransposeGroup == 0 &&
           span % 4 == 0;
  }
  return false;
}

// Whether the fast loop copies both tiles with buffer.load_to_lds into two LDS
// buffers (gemm._direct, which says when and why).
bool direct_lds(const GemmConfig& cfg, std::string_view arch, const Operands& ops, int elem_bytes, int threads,
                bool tr_b, int line_bytes) {
  bool has = false;
  for (const auto& row : rocke::data::lds_ops::kOps) {
    if (row.name == "buffer.load_to_lds") has = std::find(row.archs.begin(), row.archs.end(), arch) != row.archs.end();
  }
  if (!cfg.direct_lds || !has || ops.a_gather || ops.b_gather) return false;
  const Tile& t = cfg.tile;
  const bool b_units = (tr_b && t.block_n * elem_bytes % line_bytes == 0) || ops.b_layout == "col";
  const std::int64_t round = std::int64_t{threads} * kUnit;  // 16 bytes a lane
  bool whole = true;
  for (std::int64_t rows : {t.block_m, t.block_n}) whole = whole && rows * t.block_k * elem_bytes % round == 0;
  return ops.a_layout == "row" && b_units && whole;
}

// Operand layout -> which dimension of the copied tile is contiguous in memory.
std::string a_contiguous(const std::string& layout) { return layout == "row" ? "k" : "rows"; }
std::string b_contiguous(const std::string& layout) { return layout == "row" ? "rows" : "k"; }

const ir::Type* f32() { return ir::scalar("f32"); }

// How many mma k steps one fragment read serves: the most that fit 16 bytes (gemm._merge).
int merge_steps(int steps, int per_lane, int elem_bytes) {
  int best = 1;
  for (int j = 1; j <= steps; ++j) {
    if (steps % j == 0 && per_lane * j * elem_bytes <= kUnit) best = j;
  }
  return best;
}

std::vector<int> range(int lo, int hi, int step) {
  std::vector<int> out;
  for (int i = lo; i < hi; i += step) out.push_back(i);
  return out;
}

// _Accumulators.runs, handing each run to `fn` as soon as it is made (a
// Python generator's order).
void each_run(const Accumulators& acc, KernelBuilder& b, const std::function<void(const Run&)>& fn) {
  const int run = acc.frag->c_run;
  for (std::size_t i = 0; i < acc.frags.size(); ++i) {
    const int mt = static_cast<int>(i) / acc.tiles_n, nt = static_cast<int>(i) % acc.tiles_n;
    Value* frag = acc.frags[i];
    for (int v = 0; v < frag->type->lanes(); v += run) {
      const auto [col, row] = acc.frag->c(b, acc.lane, v);  // the mma computed C transposed
      Value* sub_row = b.add(acc.wave_row, mt * acc.shape.m);
      Value* r = b.add(sub_row, row);
      Value* sub_col = b.add(acc.wave_col, nt * acc.shape.n);
      Value* c = b.add(sub_col, col);
      std::vector<Value*> values;
      for (int j = 0; j < run; ++j) values.push_back(b.extract(frag, v + j));
      fn(Run{r, c, std::move(values)});
    }
  }
}

}  // namespace

int GemmConfig::threads(int wave) const { return static_cast<int>(tile.waves()) * wave; }

void GemmConfig::check(std::string_view generation) const {
  if (fragment(op, generation) == nullptr) {
    throw errors::FieldError(
        errors::kFieldError, "GemmConfig", json::Object{{"generation", std::string(generation)}, {"op", op}}, nullptr,
        "GemmConfig: expected an op with a fragment layout on " + std::string(generation) + ", got " + op);
  }
  // NOLINTNEXTLINE(bugprone-unchecked-optional-access): an op with a fragment layout has a shape
  const ir::mma::Shape s = *ir::mma::shape(op);
  const std::string shape = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  if (tile.mma != shape) {
    throw errors::FieldError(errors::kFieldError, "GemmConfig.tile.mma", tile.mma, json::Array{shape},
                             errors::worded("GemmConfig.tile.mma", op + "'s shape " + shape, tile.mma));
  }
}

Operands::Operands(Value* a_, Value* b_, Value* m_, Value* n_, Value* k_, ir::Operand lda_, ir::Operand ldb_,
                   std::string a_layout_, std::string b_layout_, std::optional<Gather> a_gather_,
                   std::optional<Gather> b_gather_)
    : a(a_),
      b(b_),
      m(m_),
      n(n_),
      k(k_),
      lda(lda_),
      ldb(ldb_),
      a_layout(std::move(a_layout_)),
      b_layout(std::move(b_layout_)),
      a_gather(std::move(a_gather_)),
      b_gather(std::move(b_gather_)) {
  for (const auto& [name, value] : {std::pair{"a_layout", &a_layout}, std::pair{"b_layout", &b_layout}}) {
    if (!among(*value, kLayouts)) {
      throw errors::FieldError(errors::kFieldError, "Operands", json::Object{{name, *value}}, allowed(kLayouts),
                               "Operands: expected " + std::string(name) + " to be one of " + listed(kLayouts) +
                                   ", got " + json::quote(*value));
    }
  }
}

std::vector<Run> Accumulators::runs(KernelBuilder& b) const {
  std::vector<Run> out;
  each_run(*this, b, [&](const Run& r) { out.push_back(r); });
  return out;
}

std::vector<Run> Accumulators::elements(KernelBuilder& b) const {
  std::vector<Run> out;
  each_element(b, [&](const Run& r) { out.push_back(r); });
  return out;
}

void Accumulators::each_element(KernelBuilder& b, const std::function<void(const Run&)>& fn) const {
  each_run(*this, b, [&](const Run& r) {
    for (std::size_t j = 0; j < r.values.size(); ++j) {
      Value* col = b.add(r.col, static_cast<int>(j));
      fn(Run{r.row, col, {r.values[j]}});
    }
  });
}

Accumulators mainloop(KernelBuilder& b, const GemmConfig& cfg, const Operands& ops, const ir::Type* elem, Value* row0,
                      Value* col0) {
  const std::string_view generation = b.arch().generation;
  cfg.check(generation);
  // NOLINTNEXTLINE(bugprone-unchecked-optional-access): a checked op has a shape
  const ir::mma::Shape s = *ir::mma::shape(cfg.op);
  // The tile's sizes (at most tile::kMaxSize) as the builder's int operands.
  const int block_m = static_cast<int>(cfg.tile.block_m), block_n = static_cast<int>(cfg.tile.block_n),
            block_k = static_cast<int>(cfg.tile.block_k), waves_m = static_cast<int>(cfg.tile.waves_m),
            waves_n = static_cast<int>(cfg.tile.waves_n);
  const Fragment& frag = *fragment(cfg.op, generation);
  const ir::Type* c_t = ir::mma::fragment_types(cfg.op, generation).c;
  const int wave = b.wave_size(), threads = cfg.threads(b.wave_size());
  Value* tid = b.thread_id(0);
  Value* lane = b.lane_id();
  Value* w = b.udiv(tid, wave);
  Value* wave_m = b.udiv(w, waves_n);
  Value* wave_row = b.mul(wave_m, block_m / waves_m);
  Value* wave_n = b.urem(w, waves_n);
  Value* wave_col = b.mul(wave_n, block_n / waves_n);
  const int tiles_m = block_m / waves_m / s.m, tiles_n = block_n / waves_n / s.n;
  const arch::LdsBanks banks = arch::lds_banks(b.arch().name);
  const int eb = elem->nbytes();
  const KMajor lay_a(block_m, block_k, eb, banks.count * banks.bytes);
  const KMajor lay_b(block_n, block_k, eb, banks.count * banks.bytes);
  const int steps = block_k / s.k;
  const int merge = merge_steps(steps, frag.per_lane, eb);
  const int span = frag.per_lane * merge;  // consecutive k per lane and read
  const bool tr_b = transpose_b(b.arch().name, ops, eb, frag, span);
  const bool direct = direct_lds(cfg, b.arch().name, ops, eb, threads, tr_b, lay_a.line_bytes());
  // B as k-rows: padded, or (filled slot by slot, direct) swizzled.
  const Padded lay_b_rows(block_k, block_n, eb, kTransposePad);
  const std::optional<RowXor> lay_b_xor =
      tr_b && direct ? std::optional<RowXor>(RowXor(block_k, block_n, eb, lay_a.line_bytes(), kTransposePad))
                     : std::nullopt;
  const int buffers = direct ? 2 : 1;
  const std::int64_t b_bytes = lay_b_xor ? lay_b_xor->nbytes() : tr_b ? lay_b_rows.nbytes() : lay_b.nbytes();
  Value* lds_a = b.lds_alloc(lay_a.nbytes() * buffers);
  Value* lds_b = b.lds_alloc(b_bytes * buffers);
  const ir::Type* bits = bits_of(elem);
  std::unique_ptr<const TileCopy> copy_a;
  if (ops.a_gather) {
    copy_a = std::make_unique<const GatherCopy>(ops.a, 0, ops.a_gather->contiguous, lay_a, bits, threads, ops.a_gather);
  } else {
    copy_a = std::make_unique<const TileCopy>(ops.a, ops.lda, a_contiguous(ops.a_layout), lay_a, bits, threads,
                                              cfg.edge_units);
  }
  std::unique_ptr<const TileCopy> copy_b;
  if (lay_b_xor) {
    copy_b = std::make_unique<const TileCopy>(ops.b, ops.ldb, "k", *lay_b_xor, bits, threads, cfg.edge_units);
  } else if (tr_b) {
    copy_b = std::make_unique<const TileCopy>(ops.b, ops.ldb, "k", lay_b_rows, bits, threads, cfg.edge_units);
  } else if (ops.b_gather) {
    copy_b = std::make_unique<const GatherCopy>(ops.b, 0, ops.b_gather->contiguous, lay_b, bits, threads, ops.b_gather);
  } else {
    copy_b = std::make_unique<const TileCopy>(ops.b, ops.ldb, b_contiguous(ops.b_layout), lay_b, bits, threads,
                                              cfg.edge_units);
  }
  // Where B's tile at k step kk starts in the copy's (row, k) terms.
  auto b_row0 = [&](ir::Operand kk) { return tr_b ? kk : ir::Operand(col0); };
  auto b_k0 = [&](ir::Operand kk) { return tr_b ? ir::Operand(col0) : kk; };
  const auto [lane_row, lane_k] = frag.origin(b, lane, span);
  // Every fragment read's LDS offset, computed once for both loops: [u][part][tile].
  std::vector<Value*> ks;
  for (int u = 0; u < steps / merge; ++u) ks.push_back(b.add(lane_k, u * frag.groups * span));
  using Parts = std::vector<std::vector<Value*>>;
  auto offsets = [&](const KMajor& lay, Value* wave_at, int tiles, int extent) {
    std::vector<Parts> out;
    for (Value* k : ks) {
      Parts parts;
      for (int i : range(0, span, lay.unit_elems())) {
        Value* row = b.add(wave_at, lane_row);
        Value* at = b.add(k, i);
        parts.push_back(lay.offsets(b, row, at, range(0, tiles * extent, extent)));
      }
      out.push_back(std::move(parts));
    }
    return out;
  };
  const std::vector<Parts> offsets_a = offsets(lay_a, wave_row, tiles_m, s.m);
  // B by transposed reads: per k step, the offset of each 4-k read of the
  // lane's 16-lane group (gemm.py says how the group's lanes address it).
  std::vector<Parts> offsets_b;
  std::vector<std::vector<Value*>> tr_offsets;
  std::vector<Parts> tr_tile_offsets;  // direct: [u][j][tile] (the swizzle is not a shift)
  if (tr_b) {
    Value* q = b.urem(lane, kTransposeGroup);
    Value* first = b.sub(lane_row, q);
    Value* group_col = b.add(wave_col, first);
    Value* quad = b.urem(q, 4);
    Value* quad_col = b.mul(quad, 4);
    Value* col = b.add(group_col, quad_col);
    for (Value* k : ks) {
      std::vector<Value*> reads;
      Parts tiles;
      for (int j = 0; j < span / 4; ++j) {
        Value* row_in = b.udiv(q, 4);
        Value* row_j = b.add(row_in, 4 * j);
        Value* row = b.add(k, row_j);
        if (lay_b_xor) {
          std::vector<Value*> per_tile;
          for (int nt = 0; nt < tiles_n; ++nt) {
            Value* tile_col = b.add(col, nt * s.n);
            per_tile.push_back(lay_b_xor->offset(b, row, tile_col));
          }
          tiles.push_back(std::move(per_tile));
        } else {
          reads.push_back(lay_b_rows.offset(b, row, col));
        }
      }
      tr_offsets.push_back(std::move(reads));
      tr_tile_offsets.push_back(std::move(tiles));
    }
  } else {
    offsets_b = offsets(lay_b, wave_col, tiles_n, s.n);
  }

  // A lane's `span` consecutive k of one tile's row: one read per 16-byte unit, joined.
  // Reads joined pairwise by shuffles into one vector.
  auto join = [&](std::vector<Value*> loaded) {
    while (loaded.size() > 1) {
      std::vector<Value*> joined;
      for (std::size_t i = 0; i + 1 < loaded.size(); i += 2) {
        joined.push_back(b.shuffle(loaded[i], loaded[i + 1], range(0, 2 * loaded[i]->type->lanes(), 1)));
      }
      loaded = std::move(joined);
    }
    return loaded[0];
  };

  auto read = [&](Value* lds, const Parts& parts, int tile) {
    const int per = std::min(span, lay_a.unit_elems());  // both tiles hold `elem`: the same unit
    std::vector<Value*> loaded;
    for (const auto& part : parts) {
      Value* p = b.offset(lds, part[tile]);
      loaded.push_back(b.load(p, ir::vector(elem, per)));
    }
    return join(loaded);
  };

  auto read_b = [&](Value* lds, int u, int nt) {
    if (!tr_b) return read(lds, offsets_b[u], nt);
    std::vector<Value*> loaded;
    if (lay_b_xor) {
      for (const auto& at : tr_tile_offsets[u]) {
        Value* p = b.offset(lds, at[nt]);
        loaded.push_back(b.load_transpose(p, elem));
      }
      return join(loaded);
    }
    for (Value* at : tr_offsets[u]) {
      Value* shifted = b.add(at, nt * s.n * eb);
      Value* p = b.offset(lds, shifted);
      loaded.push_back(b.load_transpose(p, elem));
    }
    return join(loaded);
  };

  // k step u's A and B fragment reads from the tiles at `la` and `lb`.
  using Reads = std::pair<std::vector<Value*>, std::vector<Value*>>;
  auto fragments = [&](int u, Value* la, Value* lb) {
    Reads reads;
    for (int mt = 0; mt < tiles_m; ++mt) reads.first.push_back(read(la, offsets_a[u], mt));
    for (int nt = 0; nt < tiles_n; ++nt) reads.second.push_back(read_b(lb, u, nt));
    return reads;
  };

  // The matrix ops of one fragment read's k steps.
  auto mmas = [&](std::vector<Value*> acc, const Reads& reads) {
    const auto& [a_reads, b_reads] = reads;
    for (int q = 0; q < merge; ++q) {
      const std::vector<int> pick = range(q * frag.per_lane, (q + 1) * frag.per_lane, 1);
      std::vector<Value*> a_frags, b_frags;
      for (Value* x : a_reads) a_frags.push_back(merge == 1 ? x : b.shuffle(x, x, pick));
      for (Value* x : b_reads) b_frags.push_back(merge == 1 ? x : b.shuffle(x, x, pick));
      for (int nt = 0; nt < tiles_n; ++nt) {
        for (int mt = 0; mt < tiles_m; ++mt) {
          const int i = mt * tiles_n + nt;
          acc[i] = b.mma(cfg.op, b_frags[nt], a_frags[mt], acc[i]);  // C transposed
        }
      }
    }
    return acc;
  };

  auto multiply = [&](std::vector<Value*> acc) {
    for (int u = 0; u < steps / merge; ++u) acc = mmas(acc, fragments(u, lds_a, lds_b));
    return acc;
  };

  Value* row_end = b.add(row0, block_m);
  Value* rows_in = b.cmp("le", row_end, ops.m);
  Value* col_end = b.add(col0, block_n);
  Value* cols_in = b.cmp("le", col_end, ops.n);
  Value* inside = b.and_(rows_in, cols_in);
  Value* fast_block = inside;
  if (ops.a_gather && ops.a_gather->fast_from > 0) {  // a block before it is gathered guarded
    Value* from = b.cmp("ge", row0, ops.a_gather->fast_from);
    fast_block = b.and_(fast_block, from);
  }
  if (ops.a_gather && ops.a_gather->fast_to > 0) {  // and one past it
    Value* end = b.add(row0, block_m);
    Value* to = b.cmp("le", end, ops.a_gather->fast_to);
    fast_block = b.and_(fast_block, to);
  }
  Value* k_tail = b.urem(ops.k, block_k);
  Value* k_whole = b.sub(ops.k, k_tail);
  Value* k_fast = b.select(fast_block, k_whole, 0);
  Value* zero_f32 = b.const_(0.0, f32());
  Value* zero = b.build(std::vector<Value*>(c_t->lanes(), zero_f32));
  const std::vector<Value*> acc(static_cast<std::size_t>(tiles_m) * tiles_n, zero);

  std::vector<Value*> fast;
  if (direct) {
    // gemm._direct_loop: two buffers per tile, step k's in buffer k % 2.
    const DirectCopy direct_a(ops.a, ops.lda, lay_a, bits, threads);
    const DirectCopy direct_b = lay_b_xor ? DirectCopy(ops.b, ops.ldb, *lay_b_xor, bits, threads)
                                          : DirectCopy(ops.b, ops.ldb, lay_b, bits, threads);
    Value* wave_bytes = b.mul(w, wave * kUnit);
    Value* wave_at = b.readfirstlane(wave_bytes);  // where this wave's slots start: an SGPR, for M0
    const DirectLanes lanes_a = direct_a.lanes(b, tid);
    const DirectLanes lanes_b = direct_b.lanes(b, tid);
    Value* any_fast = b.cmp("gt", k_fast, 0);
    b.if_(any_fast, {}, [&] {
      direct_a.issue(b, lds_a, lanes_a, row0, 0, wave_at);
      direct_b.issue(b, lds_b, lanes_b, b_row0(0), b_k0(0), wave_at);
    });
    b.barrier();
    fast = b.for_range(0, k_fast, block_k, acc, [&](const ir::Loop& loop) {
      Value* step = b.udiv(loop.iv, block_k);
      Value* odd = b.urem(step, 2);
      Value* at_a = b.mul(odd, static_cast<int>(lay_a.nbytes()));
      Value* at_b = b.mul(odd, static_cast<int>(b_bytes));
      Value* la = b.offset(lds_a, at_a);
      Value* lb = b.offset(lds_b, at_b);
      std::vector<Reads> loaded;
      for (int u = 0; u < steps / merge; ++u) loaded.push_back(fragments(u, la, lb));
      Value* after = b.add(loop.iv, block_k);
      Value* last = b.sub(k_fast, block_k);
      Value* nxt = b.min(after, last);  // the last step reloads itself: no branch
      Value* other_a = b.sub(static_cast<int>(lay_a.nbytes()), at_a);
      Value* to_a = b.offset(lds_a, other_a);
      direct_a.issue(b, to_a, lanes_a, row0, nxt, wave_at);
      Value* other_b = b.sub(static_cast<int>(b_bytes), at_b);
      Value* to_b = b.offset(lds_b, other_b);
      direct_b.issue(b, to_b, lanes_b, b_row0(nxt), b_k0(nxt), wave_at);
      std::vector<Value*> sums = loop.iters;
      for (const Reads& reads : loaded) sums = mmas(sums, reads);
      b.sched_barrier();
      b.barrier();
      b.yield_(sums);
    });
  } else {
    Value* any_fast = b.cmp("gt", k_fast, 0);
    b.if_(any_fast, {}, [&] {
      const std::vector<Value*> regs_a = copy_a->load(b, row0, 0, tid);
      copy_a->store(b, lds_a, regs_a, tid);
      const std::vector<Value*> regs_b = copy_b->load(b, b_row0(0), b_k0(0), tid);
      copy_b->store(b, lds_b, regs_b, tid);
    });
    b.barrier();
    fast = b.for_range(0, k_fast, block_k, acc, [&](const ir::Loop& loop) {
      // LDS holds this step's tiles. The next step's loads come first and
      // fly during the matrix work; only the LDS writes after it wait.
      Value* after = b.add(loop.iv, block_k);
      Value* last = b.sub(k_fast, block_k);
      Value* nxt = b.min(after, last);  // the last step reloads itself: no branch
      const std::vector<Value*> regs_a = copy_a->load(b, row0, nxt, tid);
      const std::vector<Value*> regs_b = copy_b->load(b, b_row0(nxt), b_k0(nxt), tid);
      const bool ordered = prefetch_first(generation);
      const bool pinned = matrix_first(generation);
      if (ordered || pinned) b.sched_barrier();
      const std::vector<Value*> sums = multiply(loop.iters);
      if (pinned) b.sched_barrier();
      const auto barrier = [&] { ordered ? b.lds_barrier() : b.barrier(); };
      barrier();  // every wave is done reading this step's tiles
      copy_a->store(b, lds_a, regs_a, tid);
      copy_b->store(b, lds_b, regs_b, tid);
      barrier();
      b.yield_(sums);
    });
  }
  const std::vector<Value*> edge = b.for_range(k_fast, ops.k, block_k, fast, [&](const ir::Loop& loop) {
    b.barrier();
    copy_a->guarded(b, lds_a, row0, loop.iv, ops.m, ops.k, tid);
    if (tr_b) {
      copy_b->guarded(b, lds_b, loop.iv, col0, ops.k, ops.n, tid);
    } else {
      copy_b->guarded(b, lds_b, col0, loop.iv, ops.n, ops.k, tid);
    }
    b.barrier();
    b.yield_(multiply(loop.iters));
  });
  return Accumulators{edge, wave_row, wave_col, tiles_n, s, &frag, lane, inside};
}

std::vector<Run> fma_mainloop(KernelBuilder& b, const FmaConfig& cfg, const Operands& ops, const ir::Type* elem,
                              Value* row0, Value* col0) {
  Value* tid = b.thread_id(0);
  Value* r = b.udiv(tid, cfg.block_n);
  Value* c = b.urem(tid, cfg.block_n);
  Value* gr = b.add(row0, r);
  Value* gc = b.add(col0, c);
  Value* row_in = b.cmp("lt", gr, ops.m);
  Value* col_in = b.cmp("lt", gc, ops.n);
  Value* inside = b.and_(row_in, col_in);
  const std::vector<Value*> got = b.if_(
      inside, {f32()},
      [&] {
        Value* init = b.const_(0.0, f32());
        const std::vector<Value*> sum = b.for_range(0, ops.k, 1, {init}, [&](const ir::Loop& loop) {
          Value* a_row = b.mul(gr, ops.lda);
          Value* a_at = b.add(a_row, loop.iv);
          Value* a_bytes = b.mul(a_at, elem->nbytes());
          Value* a_ptr = b.offset(ops.a, a_bytes);
          Value* x = b.load(a_ptr, elem);
          Value* b_row = b.mul(loop.iv, ops.ldb);
          Value* b_at = b.add(b_row, gc);
          Value* b_bytes = b.mul(b_at, elem->nbytes());
          Value* b_ptr = b.offset(ops.b, b_bytes);
          Value* y = b.load(b_ptr, elem);
          Value* xf = b.convert(x, f32());
          Value* yf = b.convert(y, f32());
          b.yield_({b.fma(xf, yf, loop.iters[0])});
        });
        b.yield_({sum[0]});
      },
      [&] { b.yield_({b.const_(0.0, f32())}); });
  return {Run{r, c, {got[0]}}};
}

namespace {

double decimal(std::string_view text) { return std::strtod(std::string(text).c_str(), nullptr); }

// gemm._reciprocal: 1 / x for x >= 1 as rsqrt(x * x) (gemm.py says why).
Value* reciprocal(KernelBuilder& b, Value* x) {
  Value* square = b.mul(x, x);
  return b.rsqrt(square);
}

// gemm._gelu_tanh.
Value* gelu_tanh(KernelBuilder& b, Value* x) {
  Value* k0 = b.const_(decimal(data::tile_gemm::kGeluTanhK0), f32());
  Value* k1 = b.const_(decimal(data::tile_gemm::kGeluTanhK1), f32());
  Value* square = b.mul(x, x);
  Value* poly = b.fma(square, k1, k0);
  Value* power = b.mul(x, poly);
  Value* e = b.exp2(power);
  Value* sum = b.add(e, 1.0);
  Value* r = reciprocal(b, sum);
  return b.mul(x, r);
}

// gemm._gelu_erf.
Value* gelu_erf(KernelBuilder& b, Value* x) {
  namespace facts = rocke::data::tile_gemm;
  const std::string_view a[] = {facts::kGeluErfA1, facts::kGeluErfA2, facts::kGeluErfA3, facts::kGeluErfA4,
                                facts::kGeluErfA5};
  Value* minus = b.neg(x);
  Value* magnitude = b.max(x, minus);
  Value* p = b.const_(decimal(facts::kGeluErfP), f32());
  Value* one = b.const_(1.0, f32());
  Value* d = b.fma(magnitude, p, one);
  Value* t = reciprocal(b, d);
  Value* poly = b.const_(decimal(a[4]), f32());
  for (int i = 3; i >= 0; --i) {
    Value* ai = b.const_(decimal(a[i]), f32());
    poly = b.fma(poly, t, ai);
  }
  Value* tail = b.mul(poly, t);
  Value* square = b.mul(x, x);
  Value* power = b.mul(square, decimal(facts::kGeluErfExp2));
  Value* gauss = b.exp2(power);
  Value* h = b.mul(tail, gauss);
  Value* negative = b.cmp("lt", x, 0.0);
  Value* rest = b.sub(1.0, h);
  Value* factor = b.select(negative, h, rest);
  return b.mul(x, factor);
}

Value* activate(KernelBuilder& b, const std::string& activation, Value* x) {
  if (activation == "relu") return b.max(x, 0.0);
  if (activation == "relu6") {
    Value* low = b.max(x, 0.0);
    return b.min(low, 6.0);
  }
  if (activation == "gelu_tanh") return gelu_tanh(b, x);
  if (activation == "gelu_erf") return gelu_erf(b, x);
  return x;
}

}  // namespace

std::optional<double> scale_value(const std::string& text) {
  static const std::regex decimal_text("[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?");
  if (!std::regex_match(text, decimal_text)) return std::nullopt;
  const double value = std::strtod(text.c_str(), nullptr);
  if (!(value < 3.4e38)) return std::nullopt;
  const auto rounded = static_cast<float>(value);
  if (!(rounded > 0)) return std::nullopt;
  return static_cast<double>(rounded);
}

void check_epilogue(const std::string& activation, const std::string& residual_at) {
  if (!among(activation, kActivations)) {
    throw errors::FieldError(
        errors::kFieldError, "epilogue", json::Object{{"activation", activation}}, allowed(kActivations),
        "epilogue: expected activation one of " + listed(kActivations) + ", got " + json::quote(activation));
  }
  if (!among(residual_at, kResiduals)) {
    throw errors::FieldError(
        errors::kFieldError, "epilogue", json::Object{{"residual_at", residual_at}}, allowed(kResiduals),
        "epilogue: expected residual_at one of " + listed(kResiduals) + ", got " + json::quote(residual_at));
  }
}

std::vector<Value*> finish(KernelBuilder& b, std::vector<Value*> values, const std::string& activation,
                           const Addend& bias, const Addend& residual, const std::string& residual_at, double scale) {
  check_epilogue(activation, residual_at);
  auto add_each = [&](const Addend& addend) {
    for (std::size_t j = 0; j < values.size(); ++j) {
      Value* y = addend(static_cast<int>(j));
      values[j] = b.add(values[j], y);
    }
  };
  if (bias) add_each(bias);
  if (residual && residual_at == "before_activation") add_each(residual);
  for (Value*& x : values) x = activate(b, activation, x);
  if (residual && residual_at == "after_activation") add_each(residual);
  if (scale != 1.0) {
    for (Value*& x : values) x = b.mul(x, scale);
  }
  return values;
}

void epilogue(KernelBuilder& b, const std::vector<Run>& elements, Value* out, ir::Operand ldc, ir::Operand m,
              ir::Operand n, Value* row0, Value* col0, const ir::Type* out_elem, const EpilogueOptions& options) {
  check_epilogue(options.activation, options.residual_at);
  if (options.atomic && out_elem != f32()) {
    throw errors::FieldError(errors::kFieldError, "epilogue", json::Object{{"out_elem", out_elem->str()}},
                             json::Array{f32()->str()},
                             "epilogue: expected f32 output for atomic accumulation, got " + out_elem->str());
  }
  std::vector<Run> runs = elements;

  auto load_bias = [&](Value* gc, int count) {
    Value* bytes = b.mul(gc, 4);
    Value* ptr = b.offset(options.bias, bytes);
    return count > 1 ? b.load_wide(ptr, ir::vector(f32(), count)) : b.load(ptr, f32());
  };

  // The residual of a run of `count` at (gr, gc): one load, its f32 values.
  auto load_residual = [&](Value* gr, Value* gc, int count) {
    Value* line = b.mul(gr, ldc);
    Value* at = b.add(line, gc);
    Value* bytes = b.mul(at, out_elem->nbytes());
    Value* ptr = b.offset(options.residual, bytes);
    if (count == 1) {
      Value* loaded = b.load(ptr, out_elem);
      return std::vector<Value*>{b.convert(loaded, f32())};
    }
    Value* loaded = b.load_wide(ptr, ir::vector(out_elem, count));
    std::vector<Value*> got;
    for (int j = 0; j < count; ++j) {
      Value* x = b.extract(loaded, j);
      got.push_back(b.convert(x, f32()));
    }
    return got;
  };

  // The run's values through finish: bias read by `load`, the residual by `reload` (its f32 values).
  using Load = std::function<Value*(Value*, int)>;
  using Reload = std::function<std::vector<Value*>()>;
  auto finished = [&](const std::vector<Value*>& values, Value* gc, const Load& load, const Reload& reload) {
    Value* loaded = options.bias != nullptr ? load(gc, static_cast<int>(values.size())) : nullptr;
    const std::vector<Value*> residuals = options.residual != nullptr ? reload() : std::vector<Value*>{};
    Addend bias_of;
    if (loaded != nullptr) {
      const bool one = values.size() == 1;
      bias_of = [&b, loaded, one](int j) { return one ? loaded : b.extract(loaded, j); };
    }
    Addend residual_of;
    if (options.residual != nullptr) residual_of = [residuals](int j) { return residuals[j]; };
    return finish(b, values, options.activation, bias_of, residual_of, options.residual_at, options.scale);
  };

  auto convert = [&](std::vector<Value*> values) {
    for (Value*& x : values) x = b.convert(x, out_elem);
    return values;
  };

  // Without a bias the values stored are the same on every path: finished
  // and converted once, here, before any branch (gemm.py's epilogue: why).
  const bool shared = options.bias == nullptr && options.residual == nullptr;
  if (shared) {
    for (Run& run : runs) run.values = convert(finished(run.values, nullptr, nullptr, nullptr));
  }

  // The run's values as stored: finished and converted unless `shared` did it.
  auto ready = [&](const std::vector<Value*>& values, Value* gc, const Reload& reload, const Load& load) {
    return shared ? values : convert(finished(values, gc, load, reload));
  };

  auto address = [&](Value* gr, Value* gc) {
    Value* line = b.mul(gr, ldc);
    Value* at = b.add(line, gc);
    Value* bytes = b.mul(at, out_elem->nbytes());
    return b.offset(out, bytes);
  };

  auto checked = [&] {
    for (const Run& run : runs) {
      Value* gr = b.add(row0, run.row);
      for (std::size_t j = 0; j < run.values.size(); ++j) {
        Value* first = b.add(col0, run.col);
        Value* gc = b.add(first, static_cast<int>(j));
        Value* row_in = b.cmp("lt", gr, m);
        Value* col_in = b.cmp("lt", gc, n);
        Value* in = b.and_(row_in, col_in);
        b.if_(in, {}, [&] {
          Value* value = ready({run.values[j]}, gc, [&] { return load_residual(gr, gc, 1); }, load_bias)[0];
          Value* ptr = address(gr, gc);
          if (options.atomic) {
            b.atomic_add(ptr, value);
          } else {
            b.store(ptr, value);
          }
        });
      }
    }
  };

  // The edge without branches: buffer stores the hardware drops out of
  // range (gemm.py's epilogue says why, and what bounds nbytes).
  auto buffered = [&] {
    Value* started = b.cmp("lt", row0, m);
    Value* left = b.sub(m, row0);
    Value* fit = b.min(left, *options.rows);
    Value* live = b.select(started, fit, 0);
    Value* line = b.mul(live, ldc);
    Value* nbytes = b.mul(line, out_elem->nbytes());
    Value* first = b.mul(row0, ldc);
    Value* first_bytes = b.mul(first, out_elem->nbytes());
    Value* base = b.offset(out, first_bytes);
    Value* dst = b.buffer_rsrc(base, nbytes);
    Value* src = nullptr;
    if (options.bias != nullptr) {
      Value* bias_bytes = b.mul(n, 4);
      src = b.buffer_rsrc(options.bias, bias_bytes);
    }
    Value* near = nullptr;
    if (options.residual != nullptr) {
      Value* rows_before = b.mul(row0, ldc);
      Value* skipped = b.mul(rows_before, out_elem->nbytes());
      Value* residual_base = b.offset(options.residual, skipped);
      near = b.buffer_rsrc(residual_base, nbytes);
    }
    const Load load = [&](Value* gc, int) {
      Value* bytes = b.mul(gc, 4);
      return b.buffer_load(src, bytes, f32());
    };
    // The byte offset of (row, gc) in the block's buffer: nbytes, out of range, past n.
    auto at = [&](Value* row, Value* gc) {
      Value* row_at = b.mul(row, ldc);
      Value* at_elems = b.add(row_at, gc);
      Value* offset = b.mul(at_elems, out_elem->nbytes());
      Value* col_in = b.cmp("lt", gc, n);
      return b.select(col_in, offset, nbytes);
    };
    for (const Run& run : runs) {
      for (std::size_t j = 0; j < run.values.size(); ++j) {
        Value* col = b.add(col0, run.col);
        Value* gc = b.add(col, static_cast<int>(j));
        const Reload reload = [&] {
          Value* off = at(run.row, gc);
          Value* loaded = b.buffer_load(near, off, out_elem);
          return std::vector<Value*>{b.convert(loaded, f32())};
        };
        Value* value = ready({run.values[j]}, gc, reload, load)[0];
        Value* off = at(run.row, gc);
        b.buffer_store(dst, off, value);
      }
    }
  };

  auto whole = [&] {
    for (const Run& run : runs) {
      Value* gr = b.add(row0, run.row);
      Value* gc = b.add(col0, run.col);
      const int count = static_cast<int>(run.values.size());
      const std::vector<Value*> values = ready(run.values, gc, [&] { return load_residual(gr, gc, count); }, load_bias);
      Value* ptr = address(gr, gc);
      if (options.atomic) {
        for (std::size_t j = 0; j < values.size(); ++j) {
          Value* at = b.offset(ptr, 4 * static_cast<int>(j));
          b.atomic_add(at, values[j]);
        }
      } else if (values.size() == 1) {
        b.store(ptr, values[0]);
      } else {
        Value* v = b.build(values);
        b.store_wide(ptr, v);
      }
    }
  };

  const std::function<void()> edge = options.atomic || !options.rows ? std::function<void()>(checked) : buffered;
  if (options.inside == nullptr) {
    edge();
    return;
  }
  b.if_(options.inside, {}, whole, edge);
}

}  // namespace rocke::tile
