// attention_fwd, mirroring library/attention/attention.py (which says how the
// kernel works): O = softmax(scale * Q Kᵀ + mask) V on matrix cores, one
// workgroup per block of query rows of one (batch, head). The kernel takes
// seq_q and seq_k at run time:
//
//     attention_fwd_<case id>(q, k, v, o, [mask,] [lse,] seq_q: i32, seq_k: i32)
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own statement,
// in Python's order.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "library/attention/cpp/spec.h"
#include "library/attention/family_names.h"
#include "platform/arch/cpp/arch.h"
#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/mma.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/copy.h"
#include "platform/tile/cpp/fragments.h"
#include "platform/tile/cpp/lds.h"
#include "platform/tile/cpp/softmax.h"

namespace rocke::attention {
namespace {

using ir::KernelBuilder;
using ir::Value;
using Values = std::vector<Value*>;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// attention.V_RUNS: V's elements per lane -> its transposing copy's (k_run, run); others the default.
std::pair<int, int> v_runs(int per_lane) {
  static const std::map<int, std::pair<int, int>> kVRuns = {{8, {2, 4}}, {32, {4, 0}}};
  const auto it = kVRuns.find(per_lane);
  return it == kVRuns.end() ? tile::kRuns[0] : it->second;
}

// attention._form: the op's wave on `arch`; SpecError naming the ops of the arch's generation otherwise.
int form_wave(const AttentionSpec& spec, std::string_view arch_name) {
  const arch::Arch& a = arch::get(arch_name);
  std::set<std::string> have;
  int wave = 0;
  for (const arch::Arch& other : arch::all()) {
    if (other.generation != a.generation) continue;
    for (const arch::MatrixOp& m : other.matrix) {
      const std::string op(m.op);
      if (op == spec.op()) wave = m.wave;
      const std::string tail = "_" + spec.dtype + "_f32";
      if (op.size() > tail.size() && op.ends_with(tail)) have.insert(op);
    }
  }
  if (wave != 0) return wave;
  std::string list;
  json::Array ops;
  for (const std::string& op : have) {
    list += (list.empty() ? "" : ", ") + op;
    ops.emplace_back(op);
  }
  const std::string arch(arch_name);
  throw family::SpecError("attention.spec.SpecError", "AttentionSpec.mma", spec.mma, std::move(ops),
                          errors::worded("AttentionSpec.mma",
                                         "a matrix op " + arch + " has for " + spec.dtype + " inputs (" +
                                             (list.empty() ? "none" : list) + ")",
                                         spec.mma, "take " + arch + "'s tile from library/attention/tiles.json"));
}

// The running state of the K/V loop: [query tile][head-dim tile] accumulators, the row maxima and sums.
struct State {
  std::vector<Values> acc;
  Values m, l;
};

// attention._Kernel: the builder and the values every part of the kernel reads.
struct Kernel {
  AttentionSpec spec;
  const tile::Fragment* frag = nullptr;
  const ir::Type* elem = nullptr;
  int c = 0, threads = 0, eb = 0;
  int tiles_q = 0, tiles_d = 0, tiles_k = 0;
  std::int64_t ld_q = 0, ld_k = 0;
  std::unique_ptr<KernelBuilder> b;
  Value *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *mask = nullptr, *lse = nullptr;
  Value *seq_q = nullptr, *seq_k = nullptr, *head = nullptr, *z = nullptr, *row0 = nullptr, *tid = nullptr;
  Value *lane_row = nullptr, *lane_k = nullptr, *first_group = nullptr;
  Values rows;

  explicit Kernel(const family::Case& c_) : spec(AttentionSpec::from_json(c_.spec)) {
    const int wave = form_wave(spec, c_.arch);
    const std::string generation(arch::get(c_.arch).generation);
    frag = &tile::softmax::chain(spec.op(), generation);
    elem = attention::elem(spec.dtype);
    c = ir::mma::fragment_types(spec.op(), generation).c->lanes();
    threads = static_cast<int>(spec.waves) * wave;
    b = std::make_unique<KernelBuilder>(std::string(family_names::attention::attention) + "_" + c_.id, c_.arch,
                                        std::array<int, 3>{threads, 1, 1}, wave);
    const ir::Type* global = ir::ptr("global");
    const ir::Type* i32 = ir::scalar("i32");
    Value* q_arg = b->arg("q", global);
    Value* k_arg = b->arg("k", global);
    Value* v_arg = b->arg("v", global);
    Value* o_arg = b->arg("o", global);
    if (spec.mask == "padding") mask = b->arg("mask", global);
    if (spec.lse) lse = b->arg("lse", global);
    seq_q = b->arg("seq_q", i32);
    seq_k = b->arg("seq_k", i32);
    tiles_q = static_cast<int>(spec.block_m / spec.waves / 16);
    tiles_d = static_cast<int>(spec.head_dim / 16);
    tiles_k = static_cast<int>(spec.block_n / 16);
    eb = elem->nbytes();
    Value* qb = b->block_id(0);
    head = b->block_id(1);
    z = b->block_id(2);
    Value* kv_head = b->udiv(head, spec.heads / spec.kv_heads);
    const bool bhsd = spec.layout == "bhsd";
    ld_q = bhsd ? spec.head_dim : spec.heads * spec.head_dim;
    ld_k = bhsd ? spec.head_dim : spec.kv_heads * spec.head_dim;
    Value* q_base = base(seq_q, spec.heads, head);
    Value* q_bytes = b->mul(q_base, eb);
    q = b->offset(q_arg, q_bytes);
    Value* o_bytes = b->mul(q_base, eb);
    o = b->offset(o_arg, o_bytes);
    Value* k_base = base(seq_k, spec.kv_heads, kv_head);
    Value* k_bytes = b->mul(k_base, eb);
    k = b->offset(k_arg, k_bytes);
    Value* v_bytes = b->mul(k_base, eb);
    v = b->offset(v_arg, v_bytes);
    row0 = b->mul(qb, spec.block_m);
    tid = b->thread_id(0);
    Value* lane = b->lane_id();
    Value* wave_index = b->udiv(tid, wave);
    Value* wave_row = b->mul(wave_index, spec.block_m / spec.waves);
    std::tie(lane_row, lane_k) = frag->origin(*b, lane);
    first_group = b->cmp("lt", lane, frag->rows);
    for (int t = 0; t < tiles_q; ++t) {
      Value* start = b->add(row0, wave_row);
      Value* within = b->add(lane_row, 16 * t);
      rows.push_back(b->add(start, within));
    }
  }

  Value* base(Value* seq, std::int64_t heads, Value* h) const {
    Value* per_batch = b->mul(seq, heads * spec.head_dim);
    Value* batch = b->mul(z, per_batch);
    Value* head_stride = spec.layout == "bshd" ? nullptr : b->mul(seq, spec.head_dim);
    Value* at = head_stride == nullptr ? b->mul(h, spec.head_dim) : b->mul(h, head_stride);
    return b->add(batch, at);
  }

  // [tile][d step] B fragments of this wave's Q rows (zero past seq_q).
  std::vector<Values> q_fragments() {
    const ir::Type* vec = ir::vector(elem, frag->per_lane);
    std::vector<Values> out;
    for (Value* row : rows) {
      Value* inside = b->cmp("lt", row, seq_q);
      out.push_back(b->if_(
          inside, std::vector<const ir::Type*>(tiles_d, vec),
          [&] {
            Value* scaled = b->mul(row, ld_q);
            Value* at = b->add(scaled, lane_k);
            Values loaded;
            for (int kd = 0; kd < tiles_d; ++kd) {
              Value* i = b->add(at, 16 * kd);
              Value* bytes = b->mul(i, eb);
              Value* p = b->offset(q, bytes);
              loaded.push_back(b->load(p, vec));
            }
            b->yield_(loaded);
          },
          [&] {
            Value* zero = b->const_(0.0, elem);
            Value* zeros = b->build(Values(frag->per_lane, zero));
            b->yield_(Values(tiles_d, zeros));
          }));
    }
    return out;
  }
};

// attention._reduce: `combine` over every value, as a balanced tree.
Value* reduce(KernelBuilder& b, const std::vector<Values>& rows, tile::softmax::Combine combine) {
  Values values;
  for (const Values& row : rows) values.insert(values.end(), row.begin(), row.end());
  while (values.size() > 1) {
    Values next;
    for (std::size_t i = 0; i + 1 < values.size(); i += 2) next.push_back((b.*combine)(values[i], values[i + 1]));
    if (values.size() % 2 != 0) next.push_back(values.back());
    values = std::move(next);
  }
  return values[0];
}

// attention._max3: the max of every value as a tree of max(max(a, b), c), one v_max3_f32 each.
Value* max3(KernelBuilder& b, const std::vector<Values>& rows) {
  Values values;
  for (const Values& row : rows) values.insert(values.end(), row.begin(), row.end());
  while (values.size() > 1) {
    const std::size_t tail = values.size() / 3 * 3;
    Values next;
    for (std::size_t i = 0; i < tail; i += 3) {
      Value* pair = b.max_nnan(values[i], values[i + 1]);
      next.push_back(b.max_nnan(pair, values[i + 2]));
    }
    next.insert(next.end(), values.begin() + static_cast<std::ptrdiff_t>(tail), values.end());
    if (next.size() == 2) next = {b.max_nnan(next[0], next[1])};
    values = std::move(next);
  }
  return values[0];
}

// attention._across_with: softmax.across of max over `x`, `old` joining the first exchange's max3.
Value* across_with(KernelBuilder& b, const tile::Fragment& frag, Value* x, Value* old) {
  const int n = frag.c_n;
  Value* lane = b.lane_id();
  Value* partner = b.xor_(lane, n);
  Value* addr = b.mul(partner, tile::softmax::kLaneBytes);
  Value* other = b.bpermute(addr, x);
  Value* pair = b.max_nnan(x, other);
  Value* first = b.max_nnan(pair, old);
  return tile::softmax::butterfly(b, first, &KernelBuilder::max_nnan, 2 * n, b.wave_size());
}

// attention.seen: i1, query tile t of this lane sees key element v of key tile kt of the block at kb.
Value* seen(Kernel& kern, Value* kb, int kt, int v, int t) {
  KernelBuilder& b = *kern.b;
  Value* block = b.add(kb, 16 * kt);
  Value* lane = b.add(kern.lane_k, v);
  Value* key = b.add(block, lane);
  if (!kern.spec.causal) return b.cmp("lt", key, kern.seq_k);
  // One compare against the row's last key: each is a lane mask held in scalar registers.
  Value* shift = b.sub(kern.seq_k, kern.seq_q);
  Value* diagonal = b.add(kern.rows[static_cast<std::size_t>(t)], shift);
  Value* last_key = b.sub(kern.seq_k, 1);
  Value* last = b.min(diagonal, last_key);
  return b.cmp("le", key, last);
}

// attention._bounds: (whole_end, kv_end).
std::pair<Value*, Value*> bounds(Kernel& kern) {
  KernelBuilder& b = *kern.b;
  const std::int64_t bn = kern.spec.block_n;
  Value* blocks = b.udiv(kern.seq_k, bn);
  Value* whole = b.mul(blocks, bn);
  if (!kern.spec.causal) return {whole, kern.seq_k};
  Value* shift = b.sub(kern.seq_k, kern.seq_q);
  Value* first0 = b.add(kern.row0, shift);
  Value* first1 = b.add(first0, 1);
  Value* first = b.max(first1, 0);
  Value* last0 = b.add(kern.row0, kern.spec.block_m);
  Value* last1 = b.add(last0, shift);
  Value* last = b.max(last1, 0);
  Value* first_blocks = b.udiv(first, bn);
  Value* first_whole = b.mul(first_blocks, bn);
  Value* whole_end = b.min(first_whole, whole);
  Value* kv_end = b.min(last, kern.seq_k);
  return {whole_end, kv_end};
}

Values flat(const State& s) {
  Values out;
  for (const Values& row : s.acc) out.insert(out.end(), row.begin(), row.end());
  out.insert(out.end(), s.m.begin(), s.m.end());
  out.insert(out.end(), s.l.begin(), s.l.end());
  return out;
}

State unflat(const Values& values, int tq, int td) {
  State s;
  const std::ptrdiff_t q = tq, d = td;
  for (std::ptrdiff_t t = 0; t < q; ++t) s.acc.emplace_back(values.begin() + t * d, values.begin() + (t + 1) * d);
  s.m.assign(values.begin() + q * d, values.begin() + q * d + q);
  s.l.assign(values.begin() + q * d + q, values.end());
  return s;
}

// attention._store: O (and the lse) of this lane's query rows.
void store(Kernel& kern, const State& s) {
  KernelBuilder& b = *kern.b;
  for (int t = 0; t < kern.tiles_q; ++t) {
    Value* row = kern.rows[static_cast<std::size_t>(t)];
    Value* l0 = b.extract(s.l[static_cast<std::size_t>(t)], 0);
    Value* l1 = b.extract(s.l[static_cast<std::size_t>(t)], 1);
    Value* total = tile::softmax::across(b, *kern.frag, b.add(l0, l1), &KernelBuilder::add);
    Value* inv = tile::softmax::reciprocal(b, total);
    Value* splat = b.build(Values(static_cast<std::size_t>(kern.c), inv));
    Value* inside = b.cmp("lt", row, kern.seq_q);
    b.if_(inside, {}, [&] {
      Value* scaled = b.mul(row, kern.ld_q);
      Value* at = b.add(scaled, kern.lane_k);
      for (int dt = 0; dt < kern.tiles_d; ++dt) {
        Value* product = b.mul(s.acc[static_cast<std::size_t>(t)][static_cast<std::size_t>(dt)], splat);
        Value* out = b.convert(product, ir::vector(kern.elem, kern.c));
        Value* i = b.add(at, 16 * dt);
        Value* bytes = b.mul(i, kern.eb);
        b.store_wide(b.offset(kern.o, bytes), out);
      }
    });
    if (kern.lse != nullptr) {
      Value* first = b.and_(inside, kern.first_group);
      b.if_(first, {}, [&] {
        Value* zh = b.mul(kern.z, kern.spec.heads);
        Value* bh = b.add(zh, kern.head);
        Value* rows_before = b.mul(bh, kern.seq_q);
        Value* lse_at = b.add(rows_before, row);
        Value* bytes = b.mul(lse_at, 4);
        Value* p = b.offset(kern.lse, bytes);
        Value* log = b.log(total);
        // the max is in log2 units (tile::softmax::scaled_exp)
        Value* ln2 = b.const_(tile::softmax::kLn2, ir::scalar("f32"));
        b.store(p, b.fma(s.m[static_cast<std::size_t>(t)], ln2, log));
      });
    }
  }
}

std::unique_ptr<ir::Kernel> build(const family::Case& c) {
  Kernel kern(c);
  KernelBuilder& b = *kern.b;
  const AttentionSpec& spec = kern.spec;
  const int d = static_cast<int>(spec.head_dim), bn = static_cast<int>(spec.block_n);
  const arch::LdsBanks banks = arch::lds_banks(c.arch);
  const int line = banks.count * banks.bytes;
  const tile::KMajor lay_k(bn, d, kern.eb, line);  // a key per row, head_dim contiguous
  const tile::KMajor lay_v(d, bn, kern.eb, line);  // V transposed: a head-dim element per row
  const tile::TileCopy copy_k(kern.k, kern.ld_k, "k", lay_k, kern.elem, kern.threads);
  const std::pair<int, int> v_shape = v_runs(d * bn / kern.threads);
  const tile::TileCopy copy_v(kern.v, kern.ld_k, "rows", lay_v, kern.elem, kern.threads, false, v_shape.first,
                              v_shape.second);
  Value* lds_k = b.lds_alloc(lay_k.nbytes());
  Value* lds_v = b.lds_alloc(lay_v.nbytes());
  const std::vector<Values> qf = kern.q_fragments();
  const double scale = spec.scale_value();
  const double scale2 = scale * tile::softmax::kLog2e;  // the scores in log2 units, as the statistics
  const int tq = kern.tiles_q, td = kern.tiles_d, tk = kern.tiles_k, cn = kern.c;
  std::vector<int> key_steps, d_steps;
  for (int i = 0; i < bn; i += 16) key_steps.push_back(i);
  for (int i = 0; i < d; i += 16) d_steps.push_back(i);
  std::vector<Values> off_k, off_v;
  for (int kd = 0; kd < td; ++kd) {
    Value* k0 = b.add(kern.lane_k, 16 * kd);
    off_k.push_back(lay_k.offsets(b, kern.lane_row, k0, key_steps));
  }
  for (int kt = 0; kt < tk; ++kt) {
    Value* k0 = b.add(kern.lane_k, 16 * kt);
    off_v.push_back(lay_v.offsets(b, kern.lane_row, k0, d_steps));
  }
  const ir::Type* frag_vec = ir::vector(kern.elem, kern.frag->per_lane);
  const ir::Type* f32 = ir::scalar("f32");
  Value* mask_row = nullptr;
  if (kern.mask != nullptr) {
    Value* rows_before = b.mul(kern.z, kern.seq_k);
    Value* bytes = b.mul(rows_before, 4);
    mask_row = b.offset(kern.mask, bytes);
  }
  // attention.build's raw_max: the unguarded loop keeps each row's max in score units (see there).
  const bool raw_max = mask_row == nullptr && tq == 1;

  auto mask_values = [&](Value* kb, int kt, bool guarded) {
    Value* block = b.add(kb, 16 * kt);
    Value* key = b.add(block, kern.lane_k);
    Values out;
    if (!guarded) {
      Value* bytes = b.mul(key, 4);
      Value* p = b.offset(mask_row, bytes);
      Value* vec = b.load_wide(p, ir::vector(f32, cn));
      for (int v = 0; v < cn; ++v) out.push_back(b.extract(vec, v));
      return out;
    }
    Value* nbytes = b.mul(kern.seq_k, 4);
    Value* rsrc = b.buffer_rsrc(mask_row, nbytes);
    for (int v = 0; v < cn; ++v) {
      Value* i = b.add(key, v);
      Value* bytes = b.mul(i, 4);
      out.push_back(b.buffer_load(rsrc, bytes, f32));
    }
    return out;
  };

  auto step = [&](Value* kb, State st, bool guarded) {
    Value* zero0 = b.const_(0.0, f32);
    Value* zero = b.build(Values(static_cast<std::size_t>(cn), zero0));
    std::vector<Values> s(static_cast<std::size_t>(tq), Values(static_cast<std::size_t>(tk), zero));
    for (int kt = 0; kt < tk; ++kt) {
      for (int kd = 0; kd < td; ++kd) {
        Value* p = b.offset(lds_k, off_k[static_cast<std::size_t>(kd)][static_cast<std::size_t>(kt)]);
        Value* kf = b.load(p, frag_vec);
        for (int t = 0; t < tq; ++t) {
          Value*& acc = s[static_cast<std::size_t>(t)][static_cast<std::size_t>(kt)];
          acc = b.mma(spec.op(), kf, qf[static_cast<std::size_t>(t)][static_cast<std::size_t>(kd)], acc);
        }
      }
    }
    std::vector<Values> adds;
    if (mask_row != nullptr) {
      for (int kt = 0; kt < tk; ++kt) adds.push_back(mask_values(kb, kt, guarded));
    }
    // Per query tile: P as the next product's B fragments, and alpha as a splat.
    std::vector<Values> pk(static_cast<std::size_t>(tq));
    Values splat(static_cast<std::size_t>(tq));
    for (int t = 0; t < tq; ++t) {
      const auto ut = static_cast<std::size_t>(t);
      std::vector<Values> x(static_cast<std::size_t>(tk));
      for (int kt = 0; kt < tk; ++kt) {
        for (int v = 0; v < cn; ++v)
          x[static_cast<std::size_t>(kt)].push_back(b.extract(s[ut][static_cast<std::size_t>(kt)], v));
      }
      Value* m_new = nullptr;
      Value* m_use = nullptr;
      Value* alpha = nullptr;
      std::vector<Values> p(static_cast<std::size_t>(tk));
      if (guarded || !adds.empty()) {
        for (Values& row : x) {
          for (Value*& e : row) e = b.mul(e, scale2);
        }
        if (!adds.empty()) {
          Value* log2e = b.const_(tile::softmax::kLog2e, ir::scalar("f32"));
          for (std::size_t kt = 0; kt < x.size(); ++kt) {
            for (std::size_t v = 0; v < x[kt].size(); ++v) x[kt][v] = b.fma(adds[kt][v], log2e, x[kt][v]);
          }
        }
        if (guarded) {
          for (int kt = 0; kt < tk; ++kt) {
            for (int v = 0; v < cn; ++v) {
              Value*& e = x[static_cast<std::size_t>(kt)][static_cast<std::size_t>(v)];
              Value* cond = seen(kern, kb, kt, v, t);
              e = b.select(cond, e, kNegInf);
            }
          }
        }
        Value* top = reduce(b, x, &KernelBuilder::max_nnan);
        m_new = across_with(b, *kern.frag, top, st.m[ut]);
        Value* empty = b.cmp("eq", m_new, kNegInf);
        m_use = b.select(empty, 0.0, m_new);
        for (std::size_t kt = 0; kt < x.size(); ++kt) {
          for (Value* e : x[kt]) {
            Value* shifted = b.sub(e, m_use);
            p[kt].push_back(b.exp2(shifted));
          }
        }
        alpha = b.exp2(b.sub(st.m[ut], m_use));
      } else if (raw_max) {
        // The old max joins the lane's tree as one more max3 operand (m and m_new in score units).
        std::vector<Values> with_old = x;
        with_old.push_back({st.m[ut]});
        Value* top = max3(b, with_old);
        m_new = tile::softmax::across(b, *kern.frag, top, &KernelBuilder::max_nnan);
        m_use = b.mul(m_new, scale2);
        for (std::size_t kt = 0; kt < x.size(); ++kt) {
          for (Value* e : x[kt]) p[kt].push_back(tile::softmax::scaled_exp(b, e, scale, m_use));
        }
        alpha = tile::softmax::scaled_exp(b, st.m[ut], scale, m_use);
      } else {
        Value* top = max3(b, x);
        Value* scaled_top = b.mul(top, scale2);
        m_new = across_with(b, *kern.frag, scaled_top, st.m[ut]);
        m_use = m_new;
        for (std::size_t kt = 0; kt < x.size(); ++kt) {
          for (Value* e : x[kt]) p[kt].push_back(tile::softmax::scaled_exp(b, e, scale, m_use));
        }
        alpha = b.exp2(b.sub(st.m[ut], m_use));
      }
      // The row sum stays two partial sums (packed adds on CDNA), summed at the end (store).
      Values pairs;
      for (const Values& row : p) {
        for (std::size_t v = 0; v < row.size(); v += 2) pairs.push_back(b.build({row[v], row[v + 1]}));
      }
      Value* alpha2 = b.build({alpha, alpha});
      Value* added = reduce(b, std::vector<Values>{pairs}, &KernelBuilder::add);
      st.l[ut] = b.fma(st.l[ut], alpha2, added);
      st.m[ut] = m_new;
      for (const Values& row : p) pk[ut].push_back(tile::softmax::repack(b, row, kern.elem));
      splat[ut] = b.build(Values(static_cast<std::size_t>(cn), alpha));
    }
    // Each V fragment is read once for all the wave's query tiles.
    for (int dt = 0; dt < td; ++dt) {
      const auto ud = static_cast<std::size_t>(dt);
      Values a;
      for (int t = 0; t < tq; ++t) {
        const auto ut = static_cast<std::size_t>(t);
        a.push_back(b.mul(st.acc[ut][ud], splat[ut]));
      }
      for (int kt = 0; kt < tk; ++kt) {
        const auto uk = static_cast<std::size_t>(kt);
        Value* at = b.offset(lds_v, off_v[uk][ud]);
        Value* vf = b.load(at, frag_vec);
        for (int t = 0; t < tq; ++t) {
          const auto ut = static_cast<std::size_t>(t);
          a[ut] = b.mma(spec.op(), vf, pk[ut][uk], a[ut]);
        }
      }
      for (int t = 0; t < tq; ++t) st.acc[static_cast<std::size_t>(t)][ud] = a[static_cast<std::size_t>(t)];
    }
    return st;
  };

  Value* zero0 = b.const_(0.0, f32);
  Value* zero = b.build(Values(static_cast<std::size_t>(cn), zero0));
  Value* neg_inf = b.const_(kNegInf, f32);
  Value* nothing = b.const_(0.0, f32);
  State init;
  init.acc.assign(static_cast<std::size_t>(tq), Values(static_cast<std::size_t>(td), zero));
  init.m.assign(static_cast<std::size_t>(tq), neg_inf);
  init.l.assign(static_cast<std::size_t>(tq), b.build({nothing, nothing}));
  const auto [whole_end, kv_end] = bounds(kern);
  Value* any = b.cmp("gt", whole_end, 0);
  b.if_(any, {}, [&] {
    copy_k.store(b, lds_k, copy_k.load(b, 0, 0, kern.tid), kern.tid);
    copy_v.store(b, lds_v, copy_v.load(b, 0, 0, kern.tid), kern.tid);
  });
  b.lds_barrier();  // K and V reach LDS through registers: the barriers need order LDS alone
  const Values fast = b.for_range(0, whole_end, bn, flat(init), [&](const ir::Loop& loop) {
    Value* next = b.add(loop.iv, bn);
    Value* last = b.sub(whole_end, bn);
    Value* nxt = b.min(next, last);  // the last block reloads itself: no branch
    // The block's origin is added to the pointers, so each lane's offset from it is the same every
    // iteration: one 64-bit add a load, where a whole index to the tensors' start costs four or five.
    Value* origin_elems = b.mul(nxt, kern.ld_k);
    Value* origin = b.mul(origin_elems, kern.eb);
    Value* k_block = b.offset(kern.k, origin);
    Value* v_block = b.offset(kern.v, origin);
    const tile::TileCopy block_k(k_block, kern.ld_k, "k", lay_k, kern.elem, kern.threads);
    const tile::TileCopy block_v(v_block, kern.ld_k, "rows", lay_v, kern.elem, kern.threads, false, v_shape.first,
                                 v_shape.second);
    const Values regs_k = block_k.load(b, 0, 0, kern.tid);
    const Values regs_v = block_v.load(b, 0, 0, kern.tid);
    const State st = step(loop.iv, unflat(loop.iters, tq, td), false);
    b.lds_barrier();  // every wave is done reading this block
    copy_k.store(b, lds_k, regs_k, kern.tid);
    copy_v.store(b, lds_v, regs_v, kern.tid);
    b.lds_barrier();
    b.yield_(flat(st));
  });
  State after = unflat(fast, tq, td);
  if (raw_max) {
    for (Value*& m : after.m) m = b.mul(m, scale2);  // the band's statistics are in log2 units
  }
  const Values band = b.for_range(whole_end, kv_end, bn, flat(after), [&](const ir::Loop& loop) {
    b.lds_barrier();
    copy_k.guarded(b, lds_k, loop.iv, 0, kern.seq_k, d, kern.tid);
    copy_v.guarded(b, lds_v, 0, loop.iv, d, kern.seq_k, kern.tid);
    b.lds_barrier();
    b.yield_(flat(step(loop.iv, unflat(loop.iters, tq, td), true)));
  });
  store(kern, unflat(band, tq, td));
  return b.finish();
}

const family::Registration kRegistration({
    .name = family_names::attention::attention,
    .build = &build,
    .spec_json = &normalised,
});

}  // namespace
}  // namespace rocke::attention
