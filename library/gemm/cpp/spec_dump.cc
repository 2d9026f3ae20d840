// For spec_parity_test: each line of the file argv[1] is a JSON object,
// {"spec": S} (GemmSpec::from_json(S)) or {"tile": [arch, m, n, k, dtype,
// out, options]} (spec_for); print one canonical JSON line per input:
// ["ok", to_json()], ["SpecError", message] or ["TileError", message].
#include <fstream>
#include <iostream>
#include <string>

#include "library/gemm/cpp/spec.h"
#include "library/gemm/cpp/tiles.h"
#include "platform/cpp/family/family.h"
#include "platform/cpp/json/json.h"

namespace {

using namespace rocke;

json::Value run(const json::Value& request) {
  const json::Object& r = request.as_object();
  if (const auto it = r.find("spec"); it != r.end()) return gemm::GemmSpec::from_json(it->second).to_json();
  const json::Array& t = r.at("tile").as_array();
  gemm::Options options;
  for (const auto& [key, value] : t[6].as_object()) {
    if (key == "layout_a") options.layout_a = value.as_str();
    if (key == "layout_b") options.layout_b = value.as_str();
    if (key == "bias_relu") options.bias_relu = value.as_bool();
  }
  return gemm::spec_for(t[0].as_str(), t[1].as_int(), t[2].as_int(), t[3].as_int(), t[4].as_str(), t[5].as_str(), options)
      .to_json();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: spec_dump FILE (one JSON request per line)\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "spec_dump: cannot read " << argv[1] << "\n";
    return 2;
  }
  for (std::string line; std::getline(in, line);) {
    json::Array out;
    try {
      out = {"ok", run(json::parse(line))};
    } catch (const gemm::TileError& e) {
      out = {"TileError", e.what()};
    } catch (const family::SpecError& e) {
      out = {"SpecError", e.what()};
    }
    std::cout << json::canonical(out) << "\n";
  }
  return 0;
}
