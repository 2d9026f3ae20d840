#include "platform/arch/cpp/arch.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "platform/arch/cpp/archs_data.h"
#include "platform/arch/cpp/flavor_cpus_data.h"
#include "platform/arch/cpp/mma_forms_data.h"
#include "platform/cpp/json/json.h"

namespace rocke::arch {

namespace {

std::vector<Arch> build() {
  std::vector<Arch> table;
  for (const auto& r : data::archs::kArchs) {
    std::vector<std::string_view> flavors;
    for (const auto& f : data::flavor_facts::kFlavors) {
      if (std::find(f.cpus.begin(), f.cpus.end(), r.name) != f.cpus.end()) flavors.push_back(f.name);
    }
    // arch.py refuses to load an arch no flavor knows; this only guards front().
    if (flavors.empty()) throw std::logic_error("no flavor of flavor_facts.json knows " + std::string(r.name));
    const std::string_view oldest = flavors.front();
    table.push_back(Arch{r.name,
                         r.generation,
                         r.cus,
                         r.xcds,
                         r.wave_sizes,
                         r.lds_bytes,
                         r.max_workgroup_size,
                         r.waves_per_eu,
                         r.vgprs,
                         r.agprs,
                         {},
                         std::move(flavors),
                         oldest});
  }
  // Forms are sorted by (op id, generation), so each arch's ops come by op id,
  // as arch.py's _matrix appends them.
  for (const auto& f : data::mma_forms::kForms) {
    for (std::string_view name : f.archs) {
      auto it = std::find_if(table.begin(), table.end(), [&](const Arch& a) { return a.name == name; });
      // arch.py refuses to load such a file; this only guards the index.
      if (it == table.end())
        throw std::logic_error("mma_forms.json names an arch archs.json lacks: " + std::string(name));
      it->matrix.push_back(MatrixOp{f.op, f.m, f.n, f.k, f.a, f.c, f.wave});
    }
  }
  return table;
}

}  // namespace

const std::vector<Arch>& all() {
  static const std::vector<Arch> table = build();
  return table;
}

const Arch& get(std::string_view name) {
  const auto& table = all();
  for (const Arch& a : table) {
    if (a.name == name) return a;
  }
  std::vector<std::string_view> names;
  json::Array allowed;
  std::string known;
  for (const Arch& a : table) {
    names.push_back(a.name);
    allowed.emplace_back(std::string(a.name));
    known += (known.empty() ? "" : ", ") + std::string(a.name);
  }
  const std::string_view close = errors::closest(name, names);
  const std::string hint = close.empty() ? "" : " Did you mean " + std::string(close) + "?";
  throw UnknownArchError("arch", std::string(name), std::move(allowed),
                         "arch: expected one of " + known + ", got " + json::quote(name) + "." + hint);
}

LdsBanks lds_banks(std::string_view name) {
  get(name);
  for (const auto& r : data::archs::kArchs) {
    if (r.name == name) return LdsBanks{r.lds_banks, r.lds_bank_bytes};
  }
  throw std::logic_error("arch table and archs.json disagree on " + std::string(name));
}

}  // namespace rocke::arch
