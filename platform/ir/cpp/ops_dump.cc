// Prints {"ops": {name: entry}, "values": {op: {attr: [value...]}},
// "errors": {probe: message}} for ops_parity_test: each entry in ops.json's
// own form (a count or {"min": count}; values a table's name or a list), the
// values each attribute allows once its table is looked up, and schema()'s
// error for each argument.
#include <iostream>
#include <span>
#include <string>
#include <string_view>

#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/ops.h"

namespace {

using rocke::json::quote;

std::string count(const rocke::ops::Count& c) {
  return c.is_min ? "{\"min\": " + std::to_string(c.n) + "}" : std::to_string(c.n);
}

std::string values(const rocke::ops::Attr& a) {
  std::string out = "[";
  for (int x : a.ints) out += (out.size() > 1 ? ", " : "") + std::to_string(x);
  for (std::string_view s : a.strs) out += (out.size() > 1 ? ", " : "") + quote(s);
  return out + "]";
}

std::string attr(const rocke::ops::Attr& a) {
  std::string out = "{\"kind\": " + quote(a.kind);
  if (a.min) out += ", \"min\": " + std::to_string(*a.min);
  if (a.optional) out += ", \"optional\": true";
  if (a.has_values) out += ", \"values\": " + (a.table.empty() ? values(a) : quote(a.table));
  return out + "}";
}

std::string entry(const rocke::ops::Schema& s) {
  std::string attrs = "{";
  for (const auto& a : s.attrs) attrs += (attrs.size() > 1 ? ", " : "") + quote(a.name) + ": " + attr(a);
  return "{\"attrs\": " + attrs + "}, \"fp8\": " + (s.fp8 ? "true" : "false") + ", \"operands\": " + count(s.operands) +
         ", \"regions\": " + std::to_string(s.regions) + ", \"results\": " + count(s.results) + "}";
}

}  // namespace

int main(int argc, char** argv) {
  std::string ops = "{", allowed = "{";
  for (const auto& s : rocke::ops::all()) {
    ops += (ops.size() > 1 ? ", " : "") + quote(s.name) + ": " + entry(s);
    std::string per = "{";
    for (const auto& a : s.attrs) {
      if (a.has_values) per += (per.size() > 1 ? ", " : "") + quote(a.name) + ": " + values(a);
    }
    allowed += (allowed.size() > 1 ? ", " : "") + quote(s.name) + ": " + per + "}";
  }
  std::string errors = "{";
  for (int i = 1; i < argc; ++i) {
    rocke::json::Value refusal;  // [facts, message], null if none
    try {
      rocke::ops::schema(argv[i]);
    } catch (const rocke::ops::UnknownOpError& e) {
      refusal = rocke::json::Array{e.facts(), e.what()};
    }
    errors += (i == 1 ? "" : ", ") + quote(argv[i]) + ": " + rocke::json::canonical(refusal);
  }
  std::cout << "{\"ops\": " << ops << "}, \"values\": " << allowed << "}, \"errors\": " << errors << "}}\n";
  return 0;
}
