// Prints every type the C++ side makes, and the errors of bad parts, as JSON
// for types_parity_test:
//   {"scalars": [[str, bits, nbytes, is_int, is_float]], "vectors": [[str, nbytes, lanes]],
//    "pointers": [[str, addrspace]], "errors": {case: message}}
#include <functional>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/ir/cpp/types.h"

using namespace rocke::ir;
using rocke::json::quote;

namespace {

std::string flag(bool b) { return b ? "true" : "false"; }

}  // namespace

int main() {
  std::string scalars_, vectors_, pointers_, errors_;
  const auto sep = [](const std::string& s) { return std::string(s.empty() ? "" : ", "); };
  for (const Type* t : scalars()) {
    scalars_ += sep(scalars_) + "[" + quote(t->str()) + ", " + std::to_string(t->bits()) + ", " +
                std::to_string(t->nbytes()) + ", " + flag(t->is_int()) + ", " + flag(t->is_float()) + "]";
    for (int n = 2; n <= max_lanes(); ++n) {
      const Type* v = vector(t, n);
      vectors_ += sep(vectors_) + "[" + quote(v->str()) + ", " + std::to_string(v->nbytes()) + ", " +
                  std::to_string(v->lanes()) + "]";
    }
  }
  for (const char* space : {"global", "lds", "constant", "private", "buffer"}) {
    const Type* p = ptr(space);
    pointers_ += sep(pointers_) + "[" + quote(p->str()) + ", " + std::to_string(p->addrspace()) + "]";
  }
  const Type* f16 = scalar("f16");
  const std::vector<std::pair<const char*, std::function<void()>>> bad = {
      {"vector(F16, 0)", [&] { vector(f16, 0); }},
      {"vector(F16, 65)", [&] { vector(f16, 65); }},
      {"vector(vector(F16, 4), 2)", [&] { vector(vector(f16, 4), 2); }},
      {"vector(GLOBAL, 2)", [&] { vector(ptr("global"), 2); }},
      {"vector(None, 2)", [&] { vector(nullptr, 2); }},
      {"ptr('shared')", [&] { ptr("shared"); }},
      {"ptr(\"it's\")", [&] { ptr("it's"); }},
      {"ptr('')", [&] { ptr(""); }},
  };
  for (const auto& [name, body] : bad) {
    rocke::json::Value refusal;  // [facts, message], null if none
    try {
      body();
    } catch (const BadTypeError& e) {
      refusal = rocke::json::Array{e.facts(), e.what()};
    }
    errors_ += sep(errors_) + quote(name) + ": " + rocke::json::canonical(refusal);
  }
  std::cout << "{\"scalars\": [" << scalars_ << "], \"vectors\": [" << vectors_ << "], \"pointers\": [" << pointers_
            << "], \"errors\": {" << errors_ << "}}\n";
  return 0;
}
