// For spec_parity_test: each line of the file argv[1] is a JSON object,
// {"spec": S} (GemmSpec::from_json(S)) or {"tile": [arch, m, n, k, dtype,
// out, options]} (spec_for); print one canonical JSON line per input:
// ["ok", to_json()] or parity::refused(e) (a SpecError or TileError).
#include "library/gemm/cpp/spec.h"
#include "library/gemm/cpp/tiles.h"
#include "platform/cpp/json/json.h"
#include "platform/family/cpp/family.h"
#include "platform/parity/cpp/dump_main.h"

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
    if (key == "bias") options.bias = value.as_bool();
    if (key == "activation") options.activation = value.as_str();
    if (key == "residual") options.residual = value.as_str();
    if (key == "scale") options.scale = value.as_str();
  }
  return gemm::spec_for(t[0].as_str(), t[1].as_int(), t[2].as_int(), t[3].as_int(), t[4].as_str(), t[5].as_str(),
                        options)
      .to_json();
}

json::Array answer(const json::Value& request) {
  try {
    return {"ok", run(request)};
  } catch (const errors::FieldError& e) {
    return parity::refused(e);
  }
}

}  // namespace

int main(int argc, char** argv) { return rocke::parity::dump_main(argc, argv, "spec_dump", answer); }
