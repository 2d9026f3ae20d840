#include "platform/tile/cpp/tile.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "platform/arch/cpp/mma_forms_data.h"
#include "platform/errors/cpp/errors.h"

namespace rocke::tile {
namespace {

// An errors::FieldError of class `python_class` for `where`.`name`.
[[noreturn]] void fail(std::string_view where, std::string_view python_class, std::string_view name,
                       const json::Value& value, std::string_view allowed, json::Value choices = nullptr) {
  const std::string field = std::string(where) + "." + std::string(name);
  throw errors::FieldError(std::string(python_class), field, value, std::move(choices),
                           errors::worded(field, allowed, value));
}

// fields[name]; the caller has every field (the spec's JSON check).
const json::Value& at(const json::Object& fields, std::string_view name) {
  auto it = fields.find(name);
  if (it == fields.end()) throw std::logic_error("tile fields: no " + std::string(name));
  return it->second;
}

}  // namespace

std::vector<std::string> shapes(std::optional<std::string_view> dtype, std::optional<std::string_view> arch) {
  std::set<std::tuple<int, int, int>> found;  // sorted as Python's sorted(tuples)
  for (const auto& f : data::mma_forms::kForms) {
    if (f.c != "f32" || (dtype && f.a != *dtype)) continue;
    if (arch && std::find(f.archs.begin(), f.archs.end(), *arch) == f.archs.end()) continue;
    found.emplace(f.m, f.n, f.k);
  }
  std::vector<std::string> out;
  for (const auto& [m, n, k] : found) {
    out.push_back(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
  }
  return out;
}

Tile Tile::of(const json::Object& fields, std::string_view where, std::string_view python_class) {
  auto bad = [&](std::string_view name, const json::Value& value, std::string_view allowed,
                 json::Value choices = nullptr) {
    fail(where, python_class, name, value, allowed, std::move(choices));
  };
  Tile t;
  const std::pair<std::string_view, std::int64_t*> sizes[] = {{"block_m", &t.block_m},
                                                              {"block_n", &t.block_n},
                                                              {"block_k", &t.block_k},
                                                              {"waves_m", &t.waves_m},
                                                              {"waves_n", &t.waves_n}};
  for (const auto& [name, slot] : sizes) {
    const json::Value& v = at(fields, name);
    if (!v.above_int64() && (!v.is_int() || v.as_int() < 1)) bad(name, v, "a positive int");
    if (v.above_int64() || v.as_int() > kMaxSize) {
      bad(name, v, "a positive int at most " + std::to_string(kMaxSize) + " (a tile size is an i32)", kMaxSize);
    }
    *slot = v.as_int();
  }
  const std::vector<std::string> known = shapes();
  const json::Value& mma = at(fields, "mma");
  if (!mma.is_str() || std::find(known.begin(), known.end(), mma.as_str()) == known.end()) {
    json::Array listed(known.begin(), known.end());
    std::string list;
    for (const std::string& s : known) list += (list.empty() ? "" : ", ") + s;
    bad("mma", mma, "a matrix-core shape MxNxK: one of " + list, std::move(listed));
  }
  t.mma = mma.as_str();
  const auto [mm, mn, mk] = t.mma_shape();
  const std::tuple<std::string_view, std::int64_t, std::int64_t, std::string> parts[] = {
      {"block_m", t.block_m, t.waves_m * mm,
       "waves_m (" + std::to_string(t.waves_m) + ") x the mma's M (" + std::to_string(mm) + ")"},
      {"block_n", t.block_n, t.waves_n * mn,
       "waves_n (" + std::to_string(t.waves_n) + ") x the mma's N (" + std::to_string(mn) + ")"},
      {"block_k", t.block_k, mk, "the mma's K (" + std::to_string(mk) + ")"},
  };
  for (const auto& [name, size, part, why] : parts) {
    if (size % part) bad(name, json::Value(size), "a multiple of " + why + " = " + std::to_string(part), part);
  }
  return t;
}

Tile Tile::make(std::string mma, std::int64_t block_m, std::int64_t block_n, std::int64_t block_k, std::int64_t waves_m,
                std::int64_t waves_n) {
  const json::Object fields{{"mma", std::move(mma)}, {"block_m", block_m}, {"block_n", block_n},
                            {"block_k", block_k},    {"waves_m", waves_m}, {"waves_n", waves_n}};
  return of(fields, "Tile", errors::kFieldError);
}

json::Object Tile::to_json() const {
  return json::Object{
      {"mma", mma},         {"block_m", block_m}, {"block_n", block_n},
      {"block_k", block_k}, {"waves_m", waves_m}, {"waves_n", waves_n},
  };
}

std::array<int, 3> Tile::mma_shape() const {
  std::array<int, 3> out{};
  std::size_t at = 0;
  for (int& x : out) {
    const std::size_t end = std::min(mma.find('x', at), mma.size());
    x = std::stoi(mma.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

}  // namespace rocke::tile
