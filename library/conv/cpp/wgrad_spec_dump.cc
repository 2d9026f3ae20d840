// For wgrad_spec_parity_test: each line of the file argv[1] is a JSON
// WgradSpec; print one canonical JSON line per input: ["ok", to_json()] or
// ["SpecError", message] (WgradSpec::from_json).
#include <fstream>
#include <iostream>
#include <string>

#include "library/conv/cpp/wgrad_spec.h"
#include "platform/cpp/family/family.h"
#include "platform/cpp/json/json.h"

int main(int argc, char** argv) {
  using namespace rocke;
  if (argc != 2) {
    std::cerr << "usage: wgrad_spec_dump FILE (one JSON WgradSpec per line)\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "wgrad_spec_dump: cannot read " << argv[1] << "\n";
    return 2;
  }
  for (std::string line; std::getline(in, line);) {
    json::Array out;
    try {
      out = {"ok", conv::WgradSpec::from_json(json::parse(line)).to_json()};
    } catch (const family::SpecError& e) {
      out = {"SpecError", e.what()};
    }
    std::cout << json::canonical(out) << "\n";
  }
  return 0;
}
