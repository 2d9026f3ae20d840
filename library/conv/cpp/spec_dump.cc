// For spec_parity_test: each line of the file argv[1] is a JSON value; print
// one canonical JSON line per input, ["ok", to_json()] or ["SpecError",
// message], what ConvSpec::from_json made of it.
#include <fstream>
#include <iostream>
#include <string>

#include "library/conv/cpp/spec.h"
#include "platform/cpp/family/family.h"
#include "platform/cpp/json/json.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: spec_dump FILE (one JSON spec per line)\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "spec_dump: cannot read " << argv[1] << "\n";
    return 2;
  }
  for (std::string line; std::getline(in, line);) {
    rocke::json::Array out;
    try {
      out = {"ok", rocke::conv::ConvSpec::from_json(rocke::json::parse(line)).to_json()};
    } catch (const rocke::family::SpecError& e) {
      out = {"SpecError", e.what()};
    }
    std::cout << rocke::json::canonical(out) << "\n";
  }
  return 0;
}
