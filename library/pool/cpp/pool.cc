// pool, mirroring library/pool/pool.py (which says how the kernel works): max
// and average pooling, one lane per output element group (VEC channels of one
// position in nhwc, one element in nchw), the window's loops clipped to the
// input so that padding is never read:
//
//     pool_<case id>(x, y)
//
// ORDER (platform/ir/cpp/builder.h): every builder call is its own statement,
// in Python's order.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <ranges>
#include <string>
#include <vector>

#include "library/pool/cpp/lanes_data.h"
#include "library/pool/cpp/spec.h"
#include "library/pool/family_names.h"
#include "platform/cpp/json/json.h"
#include "platform/family/cpp/family.h"
#include "platform/ir/cpp/builder.h"
#include "platform/ir/cpp/types.h"

namespace rocke::pool {
namespace {

using ir::KernelBuilder;
using ir::Value;
using Values = std::vector<Value*>;

// spec.THREADS, VECTOR_BYTES and UNROLL (library/pool/lanes.json).
using data::pool_lanes::kThreads;
using data::pool_lanes::kUnroll;
using data::pool_lanes::kVectorBytes;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

std::int64_t product(const Shape& sizes) {
  std::int64_t out = 1;
  for (std::int64_t x : sizes) out *= x;
  return out;
}

// PoolSpec.vec, groups and lanes.
int vec(const PoolSpec& s) { return s.channels_last() ? kVectorBytes / elem(s.dtype)->nbytes() : 1; }
std::int64_t groups(const PoolSpec& s) { return s.channels_last() ? (s.c + vec(s) - 1) / vec(s) : 1; }
std::int64_t lanes(const PoolSpec& s) { return s.n * product(s.output()) * (s.channels_last() ? groups(s) : s.c); }

// pool.unrolled: the window's last dimension, when it is at most kUnroll long.
bool unrolled(const PoolSpec& s, int dim) {
  return dim == s.dims() - 1 && s.window[static_cast<std::size_t>(dim)] <= kUnroll;
}

// _Kernel.bounds: where each dimension's window starts, and the input positions [lo, hi) it covers.
struct Bounds {
  Values starts, lo, hi;
};

// pool._Kernel.
struct Kernel {
  PoolSpec spec;
  const ir::Type* elem = nullptr;
  int eb = 0;
  std::unique_ptr<KernelBuilder> b;
  Value *x = nullptr, *y = nullptr;

  explicit Kernel(const family::Case& c) : spec(PoolSpec::from_json(c.spec)) {
    elem = pool::elem(spec.dtype);
    eb = elem->nbytes();
    b = std::make_unique<KernelBuilder>(std::string(family_names::pool::pool) + "_" + c.id, c.arch,
                                        std::array<int, 3>{kThreads, 1, 1});
    x = b->arg("x", ir::ptr("global"));
    y = b->arg("y", ir::ptr("global"));
  }

  struct Origin {
    Value* image;
    Value* channel;
    Values out;
  };

  // _Kernel.origin.
  Origin origin(Value* gid) const {
    Value* rest = gid;
    Value* channel = nullptr;
    if (spec.channels_last()) {
      channel = b->urem(rest, groups(spec));
      rest = b->udiv(rest, groups(spec));
    }
    const Shape output = spec.output();
    Values out;
    for (const std::int64_t size : std::ranges::reverse_view(output)) {
      out.insert(out.begin(), b->urem(rest, size));
      rest = b->udiv(rest, size);
    }
    if (!spec.channels_last()) {
      channel = b->urem(rest, spec.c);
      rest = b->udiv(rest, spec.c);
    }
    return {rest, channel, out};
  }

  // _Kernel.bounds: lo and hi are null for an unrolled dimension that needs no count.
  Bounds bounds(const Values& out) const {
    const bool counted = spec.kind == "avg" && !spec.count_pad;
    Bounds w;
    for (std::size_t i = 0; i < out.size(); ++i) {
      Value* scaled = b->mul(out[i], spec.stride[i]);
      Value* start = b->sub(scaled, spec.pad[i]);
      w.starts.push_back(start);
      if (unrolled(spec, static_cast<int>(i)) && !counted) {
        w.lo.push_back(nullptr);
        w.hi.push_back(nullptr);
        continue;
      }
      w.lo.push_back(b->max(start, 0));
      Value* end = b->add(start, spec.window[i]);
      w.hi.push_back(b->min(end, spec.spatial[i]));
    }
    return w;
  }

  using Load = std::function<Values(Value*)>;

  // _Kernel.window; `acc` is the combine's identity.
  Values window(const Bounds& w, Value* base, std::int64_t stride, const Load& load, const Values& acc) const {
    const bool is_max = spec.kind == "max";
    auto combine = [&](const Values& values, const Values& loaded) {
      Values out;
      for (std::size_t i = 0; i < values.size(); ++i) {
        out.push_back(is_max ? b->max(values[i], loaded[i]) : b->add(values[i], loaded[i]));
      }
      return out;
    };
    // _Kernel.window's row: the unrolled last dimension.
    auto row = [&](int dim, Value* at, Values values) {
      const auto d = static_cast<std::size_t>(dim);
      const std::int64_t size = spec.spatial[d], pad = spec.pad[d];
      const std::int64_t reach = size + pad - (spec.output()[d] - 1) * spec.stride[d];
      const bool average = spec.kind == "avg";
      for (std::int64_t k = 0; k < spec.window[d]; ++k) {
        Value* x = b->add(w.starts[d], k);
        Values valid;
        if (k < pad) {
          if (average) valid.push_back(b->cmp("ge", x, 0));
          x = b->max(x, 0);
        }
        if (k >= reach) {
          if (average) valid.push_back(b->cmp("lt", x, size));
          x = b->min(x, size - 1);
        }
        Value* scaled = b->mul(at, size);
        Value* position = b->add(scaled, x);
        Value* elements = b->mul(position, stride);
        Value* where = b->add(base, elements);
        Values loaded = load(where);
        if (!valid.empty()) {
          Value* inside = valid.size() == 1 ? valid[0] : b->and_(valid[0], valid[1]);
          for (std::size_t i = 0; i < loaded.size(); ++i) loaded[i] = b->select(inside, loaded[i], acc[i]);
        }
        values = combine(values, loaded);
      }
      return values;
    };
    std::function<Values(int, Value*, const Values&)> nest = [&](int dim, Value* at, const Values& values) {
      if (unrolled(spec, dim)) return row(dim, at, values);
      if (dim == spec.dims()) {
        Value* scaled = b->mul(at, stride);
        Value* where = b->add(base, scaled);
        return combine(values, load(where));
      }
      const auto d = static_cast<std::size_t>(dim);
      return b->for_range(w.lo[d], w.hi[d], 1, values, [&](const ir::Loop& loop) {
        Value* inner = loop.iv;
        if (dim != 0) {
          Value* scaled = b->mul(at, spec.spatial[d]);
          inner = b->add(scaled, loop.iv);
        }
        b->yield_(nest(dim + 1, inner, loop.iters));
      });
    };
    return nest(0, nullptr, acc);
  }

  // _Kernel.finish.
  Values finish(const Values& acc, const Values& lo, const Values& hi) const {
    if (spec.kind == "max") return acc;
    const ir::Type* f32 = ir::scalar("f32");
    Value* inv = nullptr;
    if (spec.count_pad) {
      inv = b->const_(1.0 / static_cast<double>(product(spec.window)), f32);
    } else {
      Value* count = b->sub(hi[0], lo[0]);
      for (std::size_t i = 1; i < lo.size(); ++i) {
        Value* extent = b->sub(hi[i], lo[i]);
        count = b->mul(count, extent);
      }
      Value* real = b->convert(count, f32);
      Value* root = b->rsqrt(real);
      inv = b->mul(root, root);
    }
    Values out;
    for (Value* a : acc) {
      const int n = a->type->lanes();
      Value* scale = n > 1 ? b->build(Values(static_cast<std::size_t>(n), inv)) : inv;
      out.push_back(b->mul(a, scale));
    }
    return out;
  }

  // _Kernel.run.
  void run(int width, const Bounds& w, Value* base, std::int64_t stride, Value* at_out, bool vector) {
    const double start = spec.kind == "max" ? kNegInf : 0.0;
    const ir::Type* f32 = ir::scalar("f32");
    Values acc;
    Load load;
    if (vector) {
      const ir::Type* vtype = ir::vector(elem, width);
      const ir::Type* wide = ir::vector(f32, width);
      Value* zero = b->const_(start, f32);
      acc.push_back(b->build(Values(static_cast<std::size_t>(width), zero)));
      load = [this, vtype, wide](Value* at) {
        Value* bytes = b->mul(at, eb);
        Value* p = b->offset(x, bytes);
        Value* v = b->load(p, vtype);
        return Values{b->convert(v, wide)};
      };
    } else {
      Value* zero = b->const_(start, f32);
      acc.assign(static_cast<std::size_t>(width), zero);
      load = [this, width, f32](Value* at) {
        Values out;
        for (int i = 0; i < width; ++i) {
          Value* e = b->add(at, i);
          Value* bytes = b->mul(e, eb);
          Value* p = b->offset(x, bytes);
          Value* v = b->load(p, elem);
          out.push_back(b->convert(v, f32));
        }
        return out;
      };
    }
    const Values reduced = window(w, base, stride, load, acc);
    const Values result = finish(reduced, w.lo, w.hi);
    if (vector) {
      Value* bytes = b->mul(at_out, eb);
      Value* p = b->offset(y, bytes);
      b->store(p, b->convert(result[0], ir::vector(elem, width)));
    } else {
      for (std::size_t i = 0; i < result.size(); ++i) {
        Value* e = b->add(at_out, static_cast<std::int64_t>(i));
        Value* bytes = b->mul(e, eb);
        Value* p = b->offset(y, bytes);
        b->store(p, b->convert(result[i], elem));
      }
    }
  }
};

std::unique_ptr<ir::Kernel> build(const family::Case& c) {
  Kernel kern(c);
  KernelBuilder& b = *kern.b;
  const PoolSpec& spec = kern.spec;
  Value* block = b.block_id(0);
  Value* first = b.mul(block, kThreads);
  Value* tid = b.thread_id(0);
  Value* gid = b.add(first, tid);
  const std::int64_t positions = product(spec.spatial);
  Value* inside = b.cmp("lt", gid, lanes(spec));
  b.if_(inside, {}, [&] {
    const Kernel::Origin o = kern.origin(gid);
    const Bounds w = kern.bounds(o.out);
    if (spec.channels_last()) {
      const int width = vec(spec);
      const std::int64_t full = spec.c / width, tail = spec.c % width;
      Value* c0 = b.mul(o.channel, width);
      Value* image = b.mul(o.image, positions * spec.c);
      Value* base = b.add(image, c0);
      Value* position = b.udiv(gid, groups(spec));
      Value* row = b.mul(position, spec.c);
      Value* at_out = b.add(row, c0);
      if (tail == 0) {
        kern.run(width, w, base, spec.c, at_out, true);
      } else if (full == 0) {
        kern.run(static_cast<int>(tail), w, base, spec.c, at_out, false);
      } else {
        Value* is_full = b.cmp("lt", o.channel, full);
        b.if_(
            is_full, {}, [&] { kern.run(width, w, base, spec.c, at_out, true); },
            [&] { kern.run(static_cast<int>(tail), w, base, spec.c, at_out, false); });
      }
    } else {
      Value* plane = b.mul(o.image, spec.c);
      Value* channel = b.add(plane, o.channel);
      Value* base = b.mul(channel, positions);
      kern.run(1, w, base, 1, gid, false);
    }
  });
  return b.finish();
}

const family::Registration kRegistration({
    .name = family_names::pool::pool,
    .build = &build,
    .spec_json = &normalised,
});

}  // namespace
}  // namespace rocke::pool
