// norm, mirroring library/norm/norm.py (which says how the kernel works):
// layernorm and rmsnorm over a row's last dimension, one workgroup per row.
//
//     norm_<case id>(x, [residual,] [weight,] [bias,] y, [residual_out])
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own statement,
// in Python's order.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "library/norm/cpp/spec.h"
#include "library/norm/family_names.h"
#include "platform/arch/cpp/arch.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/types.h"
#include "platform/tile/cpp/rows.h"

namespace rocke::norm {
namespace {

using ir::KernelBuilder;
using ir::Value;
using Values = std::vector<Value*>;

// norm._Vector: this lane's vector's byte offset from the row's start, and
// whether it lies in the row (nullptr: every lane's does).
struct Vector {
  Value* at;
  Value* inside;
};

// (vectors, f32 values) of this lane's part of a chunk.
struct Chunk {
  std::vector<Vector> vectors;
  Values values;
};

// norm._Kernel.
struct Kernel {
  NormSpec spec;
  const ir::Type* elem = nullptr;
  const ir::Type* stored = nullptr;
  const ir::Type* values = nullptr;
  int vec = 0, eb = 0, waves = 0;
  std::unique_ptr<KernelBuilder> b;
  Value *x = nullptr, *residual = nullptr, *weight = nullptr, *bias = nullptr, *y = nullptr;
  Value *residual_out = nullptr, *tid = nullptr, *lane_at = nullptr, *slots = nullptr;

  explicit Kernel(const family::Case& c) : spec(NormSpec::from_json(c.spec)) {
    elem = norm::elem(spec.dtype);
    vec = spec.vec();
    eb = elem->nbytes();
    const int wave = arch::get(c.arch).wave_sizes.front();
    waves = static_cast<int>(spec.threads) / wave;
    b = std::make_unique<KernelBuilder>(std::string(family_names::norm::norm) + "_" + c.id, c.arch,
                                        std::array<int, 3>{static_cast<int>(spec.threads), 1, 1}, wave);
    const ir::Type* global = ir::ptr("global");
    Value* x_arg = b->arg("x", global);
    Value* residual_arg = spec.residual ? b->arg("residual", global) : nullptr;
    if (spec.affine) weight = b->arg("weight", global);
    if (spec.affine && spec.kind == "layernorm") bias = b->arg("bias", global);
    Value* y_arg = b->arg("y", global);
    Value* residual_out_arg = spec.residual_out ? b->arg("residual_out", global) : nullptr;
    Value* block = b->block_id(0);
    Value* row = b->mul(block, spec.dim * eb);
    x = b->offset(x_arg, row);
    if (residual_arg != nullptr) residual = b->offset(residual_arg, row);
    y = b->offset(y_arg, row);
    if (residual_out_arg != nullptr) residual_out = b->offset(residual_out_arg, row);
    tid = b->thread_id(0);
    lane_at = b->mul(tid, vec * eb);
    if (waves > 1) slots = b->lds_alloc(tile::rows::slots_bytes(waves));
    stored = vec > 1 ? ir::vector(elem, vec) : elem;
    values = vec > 1 ? ir::vector(ir::scalar("f32"), vec) : ir::scalar("f32");
  }

  // _Kernel.vectors.
  std::vector<Vector> vectors(std::int64_t c) const {
    std::vector<Vector> out;
    for (std::int64_t k = 0; k < spec.per_lane / vec; ++k) {
      const std::int64_t first = c * spec.chunk() + k * spec.threads * vec;  // lane 0's first element
      if (first >= spec.dim) break;
      Value* at = b->add(lane_at, first * eb);
      Value* inside = nullptr;
      if (first + spec.threads * vec > spec.dim) inside = b->cmp("lt", tid, (spec.dim - first) / vec);
      out.push_back({at, inside});
    }
    return out;
  }

  // _Kernel.read.
  Value* read(Value* p, const Vector& vector) {
    if (vector.inside == nullptr) {
      Value* at = b->offset(p, vector.at);
      Value* loaded = b->load(at, stored);
      return b->convert(loaded, values);
    }
    const Values got = b->if_(
        vector.inside, {stored},
        [&] {
          Value* at = b->offset(p, vector.at);
          b->yield_({b->load(at, stored)});
        },
        [&] {
          Value* zero = b->const_(0.0, elem);
          b->yield_({vec > 1 ? b->build(Values(static_cast<std::size_t>(vec), zero)) : zero});
        });
    return b->convert(got[0], values);
  }

  // _Kernel.write.
  void write(Value* p, const Vector& vector, Value* value) const {
    if (vector.inside == nullptr) {
      Value* at = b->offset(p, vector.at);
      b->store(at, value);
      return;
    }
    b->if_(vector.inside, {}, [&] {
      Value* at = b->offset(p, vector.at);
      b->store(at, value);
    });
  }

  // _Kernel.load_chunk.
  Chunk load_chunk(std::int64_t c, bool first_pass) {
    Chunk out{vectors(c), {}};
    for (const Vector& vector : out.vectors) {
      Value* v = read(x, vector);
      if (residual != nullptr) {
        Value* r = read(residual, vector);
        Value* sum = b->add(v, r);
        Value* total = b->convert(sum, stored);
        if (first_pass && residual_out != nullptr) write(residual_out, vector, total);
        v = b->convert(total, values);
      }
      out.values.push_back(v);
    }
    return out;
  }

  // _Kernel.elems.
  Values elems(Value* v) const {
    if (vec == 1) return {v};
    Values out;
    for (int j = 0; j < vec; ++j) out.push_back(b->extract(v, j));
    return out;
  }

  // _Kernel.splat.
  Value* splat(Value* x_) const { return vec > 1 ? b->build(Values(static_cast<std::size_t>(vec), x_)) : x_; }

  // _Kernel.total.
  Value* total(Value* lane_sum) const { return tile::rows::workgroup(*b, lane_sum, &KernelBuilder::add, slots, waves); }
};

// norm._tree.
Value* tree(KernelBuilder& b, Values values) {
  while (values.size() > 1) {
    Values next;
    for (std::size_t i = 0; i + 1 < values.size(); i += 2) next.push_back(b.add(values[i], values[i + 1]));
    if (values.size() % 2 != 0) next.push_back(values.back());
    values = std::move(next);
  }
  return values[0];
}

// norm._lane_sum.
Value* lane_sum(Kernel& kern, const Chunk& chunk, Value* mean = nullptr) {
  KernelBuilder& b = *kern.b;
  Values terms;
  for (std::size_t i = 0; i < chunk.vectors.size(); ++i) {
    const Values es = kern.elems(chunk.values[i]);
    if (mean == nullptr) {
      terms.insert(terms.end(), es.begin(), es.end());
      continue;
    }
    for (Value* e : es) {
      Value* d = b.sub(e, mean);
      Value* square = b.mul(d, d);
      const Vector& vector = chunk.vectors[i];
      terms.push_back(vector.inside == nullptr ? square : b.select(vector.inside, square, 0.0));
    }
  }
  return tree(b, std::move(terms));
}

// norm._squares.
Value* squares(Kernel& kern, const Chunk& chunk) {
  KernelBuilder& b = *kern.b;
  Values terms;
  for (Value* v : chunk.values) {
    for (Value* e : kern.elems(v)) terms.push_back(b.mul(e, e));
  }
  return tree(b, std::move(terms));
}

// norm._layernorm_stats: (mean, rsqrt(var + eps)).
std::pair<Value*, Value*> layernorm_stats(Kernel& kern, std::vector<Chunk>& held) {
  KernelBuilder& b = *kern.b;
  const NormSpec& spec = kern.spec;
  const ir::Type* f32_type = ir::scalar("f32");
  Value *mean = nullptr, *m2 = nullptr;
  std::int64_t seen = 0;
  for (std::int64_t c = 0; c < spec.chunks(); ++c) {
    held.push_back(kern.load_chunk(c, true));
    const Chunk& chunk = held.back();
    const std::int64_t n = std::min(spec.chunk(), spec.dim - c * spec.chunk());
    Value* sum = kern.total(lane_sum(kern, chunk));
    Value* chunk_mean = b.mul(sum, f32(1.0 / static_cast<double>(n)));
    Value* chunk_m2 = kern.total(lane_sum(kern, chunk, chunk_mean));
    if (mean == nullptr) {
      mean = chunk_mean;
      m2 = chunk_m2;
    } else {  // Chan, Golub and LeVeque's pairwise update of (count, mean, squared deviations)
      const auto all = static_cast<double>(seen + n);
      Value* delta = b.sub(chunk_mean, mean);
      Value* weight = b.const_(f32(static_cast<double>(n) / all), f32_type);
      mean = b.fma(delta, weight, mean);
      Value* both = b.add(m2, chunk_m2);
      Value* square = b.mul(delta, delta);
      Value* spread = b.mul(square, f32(static_cast<double>(seen * n) / all));
      m2 = b.add(both, spread);
    }
    seen += n;
  }
  Value* var = b.mul(m2, f32(1.0 / static_cast<double>(spec.dim)));
  Value* shifted = b.add(var, spec.eps_value());
  return {mean, b.rsqrt(shifted)};
}

// norm._rms_stats: rsqrt(mean(v^2) + eps).
Value* rms_stats(Kernel& kern, std::vector<Chunk>& held) {
  KernelBuilder& b = *kern.b;
  const NormSpec& spec = kern.spec;
  Value* part = nullptr;
  for (std::int64_t c = 0; c < spec.chunks(); ++c) {
    held.push_back(kern.load_chunk(c, true));
    Value* sq = squares(kern, held.back());
    part = part == nullptr ? sq : b.add(part, sq);
  }
  Value* sum = kern.total(part);
  Value* ms = b.mul(sum, f32(1.0 / static_cast<double>(spec.dim)));
  Value* shifted = b.add(ms, spec.eps_value());
  return b.rsqrt(shifted);
}

// norm._store_chunk.
void store_chunk(Kernel& kern, const Chunk& chunk, Value* centre, Value* scale) {
  KernelBuilder& b = *kern.b;
  for (std::size_t i = 0; i < chunk.vectors.size(); ++i) {
    const Vector& vector = chunk.vectors[i];
    Value* v = chunk.values[i];
    Value* centred = centre == nullptr ? v : b.sub(v, centre);
    Value* y = b.mul(centred, scale);
    if (kern.weight != nullptr) {
      Value* w = kern.read(kern.weight, vector);
      if (kern.bias == nullptr) {
        y = b.mul(y, w);
      } else {
        Value* bias = kern.read(kern.bias, vector);
        y = b.fma(y, w, bias);
      }
    }
    Value* out = b.convert(y, kern.stored);
    kern.write(kern.y, vector, out);
  }
}

std::unique_ptr<ir::Kernel> build(const family::Case& c) {
  Kernel kern(c);
  const NormSpec& spec = kern.spec;
  std::vector<Chunk> held;
  Value *centre = nullptr, *rstd = nullptr;
  if (spec.kind == "layernorm") {
    Value* mean = nullptr;
    std::tie(mean, rstd) = layernorm_stats(kern, held);
    centre = kern.splat(mean);
  } else {
    rstd = rms_stats(kern, held);
  }
  Value* scale = kern.splat(rstd);
  for (std::int64_t i = 0; i < spec.chunks(); ++i) {
    const Chunk chunk = spec.chunks() == 1 ? held[static_cast<std::size_t>(i)] : kern.load_chunk(i, false);
    store_chunk(kern, chunk, centre, scale);
  }
  return kern.b->finish();
}

const family::Registration kRegistration({
    .name = family_names::norm::norm,
    .build = &build,
    .spec_json = &normalised,
});

}  // namespace
}  // namespace rocke::norm
