// softmax, mirroring library/softmax/softmax.py (which says how the kernel
// works): y = softmax(scale * x + mask) over the last dimension, a row in a
// group of consecutive lanes of one wave; one pass where a lane's share of the
// row fits lane_elements, an online pass and a second pass otherwise.
//
//     softmax_<case id>(x, y, [mask,] rows: i32)
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own statement,
// in Python's order.
#include "platform/tile/cpp/softmax.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "library/softmax/cpp/spec.h"
#include "library/softmax/family_names.h"
#include "platform/arch/cpp/arch.h"
#include "platform/cpp/json/json.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/types.h"

namespace rocke::softmax {
namespace {

using ir::KernelBuilder;
using ir::Value;
using Values = std::vector<Value*>;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
// softmax._WIDEST: the most bytes one load or store moves.
constexpr int kWidest = 16;

// softmax.Plan: how a spec's rows map onto an arch's lanes.
struct Plan {
  int wave = 0, vector = 0, vectors = 0, group = 0, rows_per_block = 0, per_lane = 0;
  bool one_pass = false;
  int step = 0;
};

Plan plan(const SoftmaxSpec& spec, std::string_view arch_name) {
  Plan p;
  p.wave = arch::get(arch_name).wave_sizes[0];
  p.vector = spec.vector();
  p.vectors = static_cast<int>(spec.dim / p.vector);
  int pow2 = 1;
  while (pow2 < p.vectors) pow2 *= 2;
  p.group = std::min(p.wave, pow2);
  p.per_lane = (p.vectors + p.group - 1) / p.group;
  p.step = std::max(1, static_cast<int>(spec.lane_elements) / p.vector);
  p.rows_per_block = static_cast<int>(spec.waves) * p.wave / p.group;
  p.one_pass = static_cast<std::int64_t>(p.per_lane) * p.vector <= spec.lane_elements;
  return p;
}

// softmax._reduce: `combine` over `values` as a balanced tree.
Value* reduce(KernelBuilder& b, Values values, tile::softmax::Combine combine) {
  while (values.size() > 1) {
    Values next;
    for (std::size_t i = 0; i + 1 < values.size(); i += 2) next.push_back((b.*combine)(values[i], values[i + 1]));
    if (values.size() % 2 != 0) next.push_back(values.back());
    values = std::move(next);
  }
  return values[0];
}

// softmax._finite: m, or 0 where m is -inf.
Value* finite(KernelBuilder& b, Value* m) {
  Value* none = b.cmp("eq", m, kNegInf);
  return b.select(none, 0.0, m);
}

// softmax._Kernel.
struct Kernel {
  SoftmaxSpec spec;
  Plan p;
  const ir::Type* elem = nullptr;
  int eb = 0;
  std::unique_ptr<KernelBuilder> b;
  Value *rows = nullptr, *row = nullptr, *col = nullptr, *x = nullptr, *y = nullptr, *mask = nullptr;
  double scale = 0, scale2 = 0;
  std::map<std::string, Value*> rsrc;

  explicit Kernel(const family::Case& c) : spec(SoftmaxSpec::from_json(c.spec)), p(plan(spec, c.arch)) {
    elem = softmax::elem(spec.dtype);
    eb = elem->nbytes();
    b = std::make_unique<KernelBuilder>(std::string(family_names::softmax::softmax) + "_" + c.id, c.arch,
                                        std::array<int, 3>{static_cast<int>(spec.waves) * p.wave, 1, 1}, p.wave);
    const ir::Type* global = ir::ptr("global");
    Value* x_arg = b->arg("x", global);
    Value* y_arg = b->arg("y", global);
    Value* mask_arg = spec.mask ? b->arg("mask", global) : nullptr;
    rows = b->arg("rows", ir::scalar("i32"));
    Value* tid = b->thread_id(0);
    Value* block = b->block_id(0);
    Value* first = b->mul(block, p.rows_per_block);
    Value* within = b->udiv(tid, p.group);
    row = b->add(first, within);
    Value* lane = b->urem(tid, p.group);
    col = b->mul(lane, p.vector);
    Value* last = b->sub(rows, 1);
    Value* read = b->min(row, last);
    Value* at = b->mul(read, spec.dim);
    Value* x_bytes = b->mul(at, eb);
    x = b->offset(x_arg, x_bytes);
    Value* y_bytes = b->mul(at, eb);
    y = b->offset(y_arg, y_bytes);
    if (mask_arg != nullptr) {
      Value* mask_bytes = b->mul(at, 4);
      mask = b->offset(mask_arg, mask_bytes);
    }
    scale = spec.scale_value();
    scale2 = scale * tile::softmax::kLog2e;
  }

  Value* buffer(const std::string& name, Value* base, int elem_bytes) {
    auto it = rsrc.find(name);
    if (it != rsrc.end()) return it->second;
    Value* made = b->buffer_rsrc(base, spec.dim * elem_bytes);
    rsrc.emplace(name, made);
    return made;
  }

  Values f32(const std::string& name, Value* base, const ir::Type* type, Value* at, bool guarded) {
    const int n = p.vector;
    const int per = std::min(n, kWidest / type->nbytes());
    const ir::Type* piece = per > 1 ? ir::vector(type, per) : type;
    const ir::Type* f32_type = ir::scalar("f32");
    Values out;
    for (int i = 0; i < n; i += per) {
      Value* index = b->add(at, i);
      Value* bytes = b->mul(index, type->nbytes());
      Value* v = nullptr;
      if (guarded) {
        Value* r = buffer(name, base, type->nbytes());
        v = b->buffer_load(r, bytes, piece);
      } else {
        Value* ptr = b->offset(base, bytes);
        v = b->load(ptr, piece);
      }
      if (per == 1) {
        out.push_back(b->convert(v, f32_type));
        continue;
      }
      Value* wide = b->convert(v, ir::vector(f32_type, per));
      for (int j = 0; j < per; ++j) out.push_back(b->extract(wide, j));
    }
    return out;
  }

  Values read(ir::Operand k, bool guarded) {
    Value* at = b->add(col, k);
    Values values = f32("x", x, elem, at, guarded);
    if (mask != nullptr) {
      const Values adds = f32("mask", mask, ir::scalar("f32"), at, guarded);
      Value* log2e = b->const_(tile::softmax::kLog2e, ir::scalar("f32"));
      for (std::size_t i = 0; i < values.size(); ++i) {
        Value* scaled = b->mul(values[i], scale2);
        values[i] = b->fma(adds[i], log2e, scaled);
      }
    }
    if (guarded) {
      Value* inside = b->cmp("lt", at, spec.dim);
      for (Value*& v : values) v = b->select(inside, v, kNegInf);
    }
    return values;
  }

  Value* top(const Values& values) const {
    Value* t = reduce(*b, values, &KernelBuilder::max);
    return mask != nullptr ? t : b->mul(t, scale2);
  }

  Values exps(const Values& values, Value* m) const {
    Values out;
    for (Value* v : values) {
      if (mask != nullptr) {
        Value* shifted = b->sub(v, m);
        out.push_back(b->exp2(shifted));
      } else {
        out.push_back(tile::softmax::scaled_exp(*b, v, scale, m));
      }
    }
    return out;
  }

  void write(ir::Operand k, const Values& values, Value* inv, bool guarded) {
    Value* at = b->add(col, k);
    Values out;
    for (Value* v : values) out.push_back(b->mul(v, inv));
    Value* v = out.size() > 1 ? tile::softmax::repack(*b, out, elem) : b->convert(out[0], elem);
    Value* bytes = b->mul(at, eb);
    if (guarded) {
      Value* r = buffer("y", y, eb);
      b->buffer_store(r, bytes, v);
    } else {
      Value* ptr = b->offset(y, bytes);
      b->store(ptr, v);
    }
  }

  bool guarded(int j, int start = 0) const { return start + (j + 1) * p.group > p.vectors; }
};

void one_pass(Kernel& kern) {
  KernelBuilder& b = *kern.b;
  const Plan& p = kern.p;
  const int span = p.group * p.vector;
  Values flat;
  for (int j = 0; j < p.per_lane; ++j) {
    const Values held = kern.read(j * span, kern.guarded(j));
    flat.insert(flat.end(), held.begin(), held.end());
  }
  Value* t = kern.top(flat);
  Value* row_top = tile::softmax::butterfly(b, t, &KernelBuilder::max, 1, p.group);
  Value* m = finite(b, row_top);
  const Values e = kern.exps(flat, m);
  Value* part = reduce(b, e, &KernelBuilder::add);
  Value* total = tile::softmax::butterfly(b, part, &KernelBuilder::add, 1, p.group);
  Value* inv = tile::softmax::reciprocal(b, total);
  Value* inside = b.cmp("lt", kern.row, kern.rows);
  b.if_(inside, {}, [&] {
    for (int j = 0; j < p.per_lane; ++j) {
      const auto from = e.begin() + static_cast<std::ptrdiff_t>(j) * p.vector;
      kern.write(j * span, Values(from, from + p.vector), inv, kern.guarded(j));
    }
  });
}

void two_pass(Kernel& kern) {
  KernelBuilder& b = *kern.b;
  const Plan& p = kern.p;
  const int span = p.group * p.vector;
  const int chunk = p.step * span;
  const int whole = p.vectors / (p.step * p.group);
  const int tail_start = whole * p.step * p.group;
  const int tail = (p.vectors - tail_start + p.group - 1) / p.group;
  const ir::Type* f32 = ir::scalar("f32");

  auto update = [&](Value* m, Value* l, const Values& values) {
    Value* t = kern.top(values);
    Value* m_new = b.max(m, t);
    Value* m_use = finite(b, m_new);
    const Values e = kern.exps(values, m_use);
    Value* drop = b.sub(m, m_use);
    Value* alpha = b.exp2(drop);
    Value* kept = b.mul(l, alpha);
    Value* added = reduce(b, e, &KernelBuilder::add);
    return std::pair{m_new, b.add(kept, added)};
  };

  Value* m = b.const_(kNegInf, f32);
  Value* l = b.const_(0.0, f32);
  if (whole != 0) {
    const Values results = b.for_range(0, whole * chunk, chunk, {m, l}, [&](const ir::Loop& loop) {
      Values values;
      for (int j = 0; j < p.step; ++j) {
        Value* k = b.add(loop.iv, j * span);
        const Values got = kern.read(k, false);
        values.insert(values.end(), got.begin(), got.end());
      }
      const auto [m_next, l_next] = update(loop.iters[0], loop.iters[1], values);
      b.yield_({m_next, l_next});
    });
    m = results[0];
    l = results[1];
  }
  if (tail != 0) {
    Values values;
    for (int j = 0; j < tail; ++j) {
      const Values got = kern.read(tail_start * p.vector + j * span, kern.guarded(j, tail_start));
      values.insert(values.end(), got.begin(), got.end());
    }
    std::tie(m, l) = update(m, l, values);
  }
  Value* row_top = tile::softmax::butterfly(b, m, &KernelBuilder::max, 1, p.group);
  Value* top = finite(b, row_top);
  Value* drop = b.sub(m, top);
  Value* alpha = b.exp2(drop);
  Value* kept = b.mul(l, alpha);
  Value* total = tile::softmax::butterfly(b, kept, &KernelBuilder::add, 1, p.group);
  Value* inv = tile::softmax::reciprocal(b, total);
  Value* inside = b.cmp("lt", kern.row, kern.rows);
  b.if_(inside, {}, [&] {
    if (whole != 0) {
      b.for_range(0, whole * chunk, chunk, {}, [&](const ir::Loop& loop) {
        for (int j = 0; j < p.step; ++j) {
          Value* k = b.add(loop.iv, j * span);
          const Values got = kern.read(k, false);
          kern.write(k, kern.exps(got, top), inv, false);
        }
      });
    }
    for (int j = 0; j < tail; ++j) {
      const int k = tail_start * p.vector + j * span;
      const bool guarded = kern.guarded(j, tail_start);
      const Values got = kern.read(k, guarded);
      kern.write(k, kern.exps(got, top), inv, guarded);
    }
  });
}

std::unique_ptr<ir::Kernel> build(const family::Case& c) {
  Kernel kern(c);
  if (kern.p.one_pass) {
    one_pass(kern);
  } else {
    two_pass(kern);
  }
  return kern.b->finish();
}

const family::Registration kRegistration({
    .name = family_names::softmax::softmax,
    .build = &build,
    .spec_json = &normalised,
});

}  // namespace
}  // namespace rocke::softmax
