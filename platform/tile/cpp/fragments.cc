#include "platform/tile/cpp/fragments.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "platform/ir/cpp/mma_fragments_data.h"
#include "platform/tile/cpp/fragments_data.h"
#include "platform/tile/cpp/mma_layouts_data.h"

namespace rocke::tile {

namespace {

using ir::KernelBuilder;
using ir::Value;

std::map<std::string_view, Fragment> build() {
  std::map<std::string_view, Fragment> table;
  for (const auto& r : data::tile_fragments::kLayouts) {
    const auto* c = std::find_if(std::begin(data::mma_layouts::kLayouts), std::end(data::mma_layouts::kLayouts),
                                 [&](const auto& p) { return p.layout == r.layout; });
    // fragments.py refuses such a file at import (fragments_test); this only guards.
    if (c == std::end(data::mma_layouts::kLayouts))
      throw std::logic_error("fragments.json: layouts." + std::string(r.layout) +
                             " has no C placement in platform/arch/mma_layouts.json");
    table.emplace(r.layout, Fragment{r.rows, r.groups, r.per_lane, c->n, c->run, c->stride});
  }
  return table;
}

const std::map<std::string_view, Fragment>& table() {
  static const std::map<std::string_view, Fragment> t = build();
  return t;
}

}  // namespace

std::pair<Value*, Value*> Fragment::origin(KernelBuilder& b, Value* lane, std::optional<int> span) const {
  Value* row = b.urem(lane, rows);
  Value* group = b.udiv(lane, rows);
  Value* g = b.urem(group, groups);
  Value* k = b.mul(g, span.value_or(per_lane));
  return {row, k};
}

std::pair<Value*, Value*> Fragment::c(KernelBuilder& b, Value* lane, int v) const {
  Value* group = b.udiv(lane, c_n);
  if (c_run != 1) group = b.mul(group, c_run);  // as mma_layouts.CPlacement.row: no multiply by 1
  Value* row = b.add(group, v % c_run + c_stride * (v / c_run));
  Value* col = b.urem(lane, c_n);
  return {row, col};
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
