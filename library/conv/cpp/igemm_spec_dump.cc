// For igemm_spec_parity_test and split_k_reduce_parity_test: each line of
// the file argv[1] is a JSON object, {"spec": S} (IgemmSpec::from_json(S)),
// {"tile": [arch, conv]} (igemm_spec_for) or {"reduce": S}
// (ReduceSpec::from_json(S)); print one canonical JSON line per input:
// ["ok", to_json()] or [the error's Python class name (SpecError,
// IgemmSpecError, ReduceSpecError), message].
#include <fstream>
#include <iostream>
#include <string>

#include "library/conv/cpp/igemm_spec.h"
#include "library/conv/cpp/igemm_tiles.h"
#include "library/conv/cpp/spec.h"
#include "library/conv/cpp/split_k_reduce.h"
#include "platform/cpp/family/family.h"
#include "platform/cpp/json/json.h"

namespace {

using namespace rocke;

json::Value run(const json::Value& request) {
  const json::Object& r = request.as_object();
  if (const auto it = r.find("spec"); it != r.end()) return conv::IgemmSpec::from_json(it->second).to_json();
  if (const auto it = r.find("reduce"); it != r.end()) return conv::ReduceSpec::from_json(it->second).to_json();
  const json::Array& t = r.at("tile").as_array();
  return conv::igemm_spec_for(t[0].as_str(), conv::ConvSpec::from_json(t[1])).to_json();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: igemm_spec_dump FILE (one JSON request per line)\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "igemm_spec_dump: cannot read " << argv[1] << "\n";
    return 2;
  }
  for (std::string line; std::getline(in, line);) {
    json::Array out;
    try {
      out = {"ok", run(json::parse(line))};
    } catch (const family::SpecError& e) {
      out = {e.class_name(), e.what()};
    }
    std::cout << json::canonical(out) << "\n";
  }
  return 0;
}
