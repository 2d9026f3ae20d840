#include "platform/lower/cpp/flavors.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "platform/lower/cpp/flavor_facts_data.h"
#include "platform/lower/cpp/mma_lowering_data.h"

namespace rocke::lower {

namespace facts = ::rocke::data::lower_facts;
namespace mmad = ::rocke::data::mma_lowering;

namespace {

// "N.N.N" as numbers, the order flavor_facts.load sorts by (the data file's
// keys are sorted as text: llvm100 would come before llvm20).
std::vector<int> version_key(std::string_view version) {
  std::vector<int> key{0};
  for (char c : version) {
    if (c == '.') {
      key.push_back(0);
    } else {
      key.back() = key.back() * 10 + (c - '0');
    }
  }
  return key;
}

// The flavors oldest first, as flavor_facts.FLAVORS.
std::vector<Flavor> make_flavors() {
  std::vector<std::pair<std::vector<int>, Flavor>> rows;
  for (const auto& f : facts::kFlavors) {
    rows.push_back(
        {version_key(f.version),
         {f.name, f.datalayout, f.triple, f.code_object_version, f.rsrc_intrinsic, f.rsrc_count_type, f.cpus}});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Flavor> out;
  for (const auto& [key, flavor] : rows) out.push_back(flavor);
  return out;
}

const std::vector<Flavor>& table() {
  static const std::vector<Flavor> flavors = make_flavors();
  return flavors;
}

}  // namespace

std::string Flavor::triple(std::string_view arch) const {
  if (triple_kind == "amdgcn") return "amdgcn-amd-amdhsa";
  std::string_view digits = arch.substr(arch.starts_with("gfx") ? 3 : 0);
  return "amdgpu" + std::string(digits.substr(0, digits.size() - 2)) + "." +
         std::string(digits.substr(digits.size() - 2)) + "-amd-amdhsa";
}

bool Flavor::knows(std::string_view arch) const { return std::find(cpus.begin(), cpus.end(), arch) != cpus.end(); }

std::span<const Flavor> flavors() { return table(); }

const Flavor* find_flavor(std::string_view name) {
  for (const Flavor& f : table()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::vector<std::string_view> supporting(std::string_view arch) {
  std::vector<std::string_view> out;
  for (const Flavor& f : table()) {
    if (f.knows(arch)) out.push_back(f.name);
  }
  return out;
}

Generation generation(std::string_view name) {
  for (const auto& f : facts::kGenerations) {
    if (f.name == name) return {f.buffer_flags, f.barrier == "split"};
  }
  throw std::out_of_range("generation: " + std::string(name) + " is not in flavor_facts.json");
}

std::optional<Access> buffer_access(int bytes) {
  std::string key = std::to_string(bytes);
  for (const auto& a : facts::kBufferAccess) {
    if (a.bytes == key) return Access{a.type, a.suffix};
  }
  return std::nullopt;
}

std::string_view id_intrinsic(std::string_view kind, int dim) {
  for (const auto& row : facts::kIds) {
    if (row.kind == kind) return row.names[static_cast<size_t>(dim)];
  }
  throw std::out_of_range("ids: " + std::string(kind) + " is not in flavor_facts.json");
}

std::string intrinsic(std::string_view key, std::string_view suffix) {
  for (const auto& row : facts::kIntrinsics) {
    if (row.key != key) continue;
    if (row.overloaded == suffix.empty()) {
      throw std::logic_error("intrinsic '" + std::string(key) + "' (" + std::string(row.name) + "): expected " +
                             (row.overloaded ? "an overload suffix" : "no overload suffix") + ", got '" +
                             std::string(suffix) + "'");
    }
    return row.overloaded ? std::string(row.name) + "." + std::string(suffix) : std::string(row.name);
  }
  throw std::logic_error("platform/arch/flavor_facts.json: intrinsics: expected an entry '" + std::string(key) +
                         "', got none; add it (schema in platform/arch/FLAVOR_FACTS.md)");
}

std::optional<MmaLowering> mma(std::string_view op, std::string_view generation, std::string_view flavor) {
  for (const auto& f : mmad::kForms) {
    if (f.op != op || f.generation != generation) continue;
    MmaLowering out{f.intrinsic, f.ab, f.c, f.form, f.cast};
    for (const auto& o : mmad::kOverrides) {
      if (o.op != op || o.generation != generation || o.flavor != flavor) continue;
      if (o.intrinsic) out.intrinsic = *o.intrinsic;
      if (o.ab) out.ab = *o.ab;
      if (o.c) out.c = *o.c;
      if (o.form) out.form = *o.form;
      if (o.cast) out.cast = *o.cast;
    }
    return out;
  }
  return std::nullopt;
}

std::vector<std::string_view> mma_generations(std::string_view op) {
  std::vector<std::string_view> out;
  for (const auto& f : mmad::kForms) {
    if (f.op == op) out.push_back(f.generation);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace rocke::lower
