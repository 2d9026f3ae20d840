// The main loop of the spec dump binaries (parity/harness.py runs
// them): each line of the file argv[1] is a JSON request; print one canonical
// JSON line per request, what `answer` made of it: ["ok", to_json()], or
// refused(e) for an errors::FieldError.
//
//   int main(int argc, char** argv) { return rocke::parity::dump_main(argc, argv, "spec_dump", answer); }
//
// A dump of one spec class alone is spec_dump_main<Spec>, which
// rocke_cc_spec(spec_class = ...) generates (platform/build_defs/cpp_family.bzl).
#pragma once

#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"

namespace rocke::parity {

// ["error", [class name, field, value, allowed], message]: harness.py's form
// of a refusal, whose facts the parity tests compare.
inline json::Array refused(const errors::FieldError& e) { return {"error", e.facts(), e.what()}; }

inline int dump_main(int argc, char** argv, std::string_view name,
                     const std::function<json::Array(const json::Value&)>& answer) {
  if (argc != 2) {
    std::cerr << "usage: " << name << " FILE (one JSON request per line)\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << name << ": cannot read " << argv[1] << "\n";
    return 2;
  }
  for (std::string line; std::getline(in, line);) std::cout << json::canonical(answer(json::parse(line))) << "\n";
  return 0;
}

// dump_main answering ["ok", Spec::from_json(request).to_json()] or refused(e).
template <class Spec>
int spec_dump_main(int argc, char** argv, std::string_view name) {
  return dump_main(argc, argv, name, [](const json::Value& request) -> json::Array {
    try {
      return {"ok", Spec::from_json(request).to_json()};
    } catch (const errors::FieldError& e) {
      return refused(e);
    }
  });
}

}  // namespace rocke::parity
