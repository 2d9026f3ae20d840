#include "platform/tile/cpp/fragments.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "platform/ir/cpp/mma_fragments_data.h"
#include "platform/tile/cpp/fragments_data.h"

namespace rocke::tile {

namespace {

using ir::KernelBuilder;
using ir::Value;
using Pair = std::pair<Value*, Value*>;

Pair c_gfx9_16(KernelBuilder& b, Value* l, int v) {
  Value* q = b.div(l, 16);
  Value* s = b.mul(q, 4);
  Value* row = b.add(s, v);
  Value* col = b.rem(l, 16);
  return {row, col};
}

Pair c_gfx9_32(KernelBuilder& b, Value* l, int v) {
  Value* q = b.div(l, 32);
  Value* s = b.mul(q, 4);
  Value* row = b.add(s, 8 * (v / 4) + v % 4);
  Value* col = b.rem(l, 32);
  return {row, col};
}

Pair c_gfx11(KernelBuilder& b, Value* l, int v) {
  Value* q = b.div(l, 16);
  Value* row = b.add(q, 2 * v);
  Value* col = b.rem(l, 16);
  return {row, col};
}

Pair c_gfx12(KernelBuilder& b, Value* l, int v) {
  Value* q = b.div(l, 16);
  Value* s = b.mul(q, 8);
  Value* row = b.add(s, v);
  Value* col = b.rem(l, 16);
  return {row, col};
}

// C formula name (fragments.json) -> formula, as fragments.C.
constexpr std::pair<std::string_view, CFormula> kFormulas[] = {
    {"gfx11", c_gfx11},
    {"gfx12", c_gfx12},
    {"gfx9_16", c_gfx9_16},
    {"gfx9_32", c_gfx9_32},
};

std::map<std::string_view, Fragment> build() {
  std::map<std::string_view, Fragment> table;
  for (const auto& r : data::tile_fragments::kLayouts) {
    const CFormula* f = nullptr;
    for (const auto& [name, formula] : kFormulas) {
      if (name == r.c) f = &formula;
    }
    // fragments.py refuses such a file at import (fragments_test); this only guards.
    if (f == nullptr)
      throw std::logic_error("fragments.json: layouts." + std::string(r.layout) +
                             ".c names no formula: " + std::string(r.c));
    table.emplace(r.layout, Fragment{r.rows, r.groups, r.per_lane, *f, r.c_run});
  }
  return table;
}

const std::map<std::string_view, Fragment>& table() {
  static const std::map<std::string_view, Fragment> t = build();
  return t;
}

}  // namespace

std::pair<Value*, Value*> Fragment::origin(KernelBuilder& b, Value* lane, std::optional<int> span) const {
  Value* row = b.rem(lane, rows);
  Value* group = b.div(lane, rows);
  Value* g = b.rem(group, groups);
  Value* k = b.mul(g, span.value_or(per_lane));
  return {row, k};
}

const Fragment* by_id(std::string_view layout) {
  const auto it = table().find(layout);
  return it == table().end() ? nullptr : &it->second;
}

const Fragment* fragment(std::string_view op_id, std::string_view generation) {
  for (const auto& f : data::mma_fragments::kForms) {
    if (f.op != op_id || f.generation != generation) continue;
    const auto& inputs = data::tile_fragments::kInputs;
    if (std::none_of(std::begin(inputs), std::end(inputs), [&](const auto& i) { return i.name == f.a; }))
      return nullptr;
    const Fragment* frag = by_id(f.layout);
    // fragments.py fails at import on a layout id without a Fragment; so does a test here.
    if (frag == nullptr) throw std::logic_error("fragments.json has no placement for layout " + std::string(f.layout));
    return frag;
  }
  return nullptr;
}

}  // namespace rocke::tile
