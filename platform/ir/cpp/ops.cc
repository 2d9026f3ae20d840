#include "platform/ir/cpp/ops.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "platform/ir/cpp/ops_data.h"

namespace rocke::ops {

namespace {

// op_schema.py refuses a file where a count is neither form; this only
// guards the split of the union into two optional fields.
Count count(std::string_view op, const char* what, std::optional<int> exact, std::optional<int> min) {
  if (exact.has_value() == min.has_value()) {
    throw std::logic_error("ops.json: " + std::string(op) + "." + what + " is neither a count nor {\"min\": count}");
  }
  return exact ? Count{*exact, false} : Count{*min, true};
}

Attr attr(const data::ops::AttrsRow& r) {
  Attr a{r.name, r.kind, r.min, r.optional.value_or(false), r.table || r.ints || r.strs, {}, {}, {}};
  if (r.ints) a.ints = *r.ints;
  if (r.strs) a.strs = *r.strs;
  if (r.table) {
    a.table = *r.table;
    bool found = false;
    for (const auto& t : data::ops::kTables) {
      if (t.name != a.table) continue;
      found = true;
      if (t.ints) a.ints = *t.ints;
      if (t.strs) a.strs = *t.strs;
    }
    // op_schema.py refuses a file naming a missing table; this guards the lookup.
    if (!found) throw std::logic_error("ops.json: " + std::string(r.op) + " names no table " + std::string(a.table));
  }
  return a;
}

std::vector<Schema> build() {
  std::vector<Schema> table;
  for (const auto& r : data::ops::kOps) {
    table.push_back(Schema{r.name,
                           count(r.name, "operands", r.operands, r.operands_min),
                           count(r.name, "results", r.results, r.results_min),
                           r.regions,
                           r.fp8,
                           {}});
  }
  // Attribute rows come sorted by (op, name), as the ops' rows by name.
  for (const auto& r : data::ops::kAttrs) {
    for (Schema& s : table) {
      if (s.name == r.op) s.attrs.push_back(attr(r));
    }
  }
  return table;
}

}  // namespace

const std::vector<Schema>& all() {
  static const std::vector<Schema> table = build();
  return table;
}

const Schema* find(std::string_view name) {
  // all() is sorted by name (the generated rows are): a binary search, as
  // every op the builder makes is looked up several times.
  const auto& table = all();
  const auto it = std::lower_bound(table.begin(), table.end(), name,
                                   [](const Schema& s, std::string_view n) { return s.name < n; });
  return it != table.end() && it->name == name ? &*it : nullptr;
}

const Schema& schema(std::string_view name) {
  if (const Schema* s = find(name)) return *s;
  throw UnknownOpError(std::string(name));
}

}  // namespace rocke::ops
