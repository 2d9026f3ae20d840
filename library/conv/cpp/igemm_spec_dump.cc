// For igemm_spec_parity_test and split_k_reduce_parity_test: each line of
// the file argv[1] is a JSON object, {"spec": S} (IgemmSpec::from_json(S)),
// {"tile": [arch, conv]} (igemm_spec_for) or {"reduce": S}
// (ReduceSpec::from_json(S)); print one canonical JSON line per input:
// ["ok", to_json()] or parity::refused(e) (a SpecError, IgemmSpecError or
// ReduceSpecError).
#include "library/conv/cpp/igemm_spec.h"
#include "library/conv/cpp/igemm_tiles.h"
#include "library/conv/cpp/spec.h"
#include "library/conv/cpp/split_k_reduce.h"
#include "platform/cpp/json/json.h"
#include "platform/family/cpp/family.h"
#include "platform/parity/cpp/dump_main.h"

namespace {

using namespace rocke;

json::Value run(const json::Value& request) {
  const json::Object& r = request.as_object();
  if (const auto it = r.find("spec"); it != r.end()) return conv::IgemmSpec::from_json(it->second).to_json();
  if (const auto it = r.find("reduce"); it != r.end()) return conv::ReduceSpec::from_json(it->second).to_json();
  const json::Array& t = r.at("tile").as_array();
  return conv::igemm_spec_for(t[0].as_str(), conv::ConvSpec::from_json(t[1])).to_json();
}

json::Array answer(const json::Value& request) {
  try {
    return {"ok", run(request)};
  } catch (const family::SpecError& e) {
    return parity::refused(e);
  }
}

}  // namespace

int main(int argc, char** argv) { return rocke::parity::dump_main(argc, argv, "igemm_spec_dump", answer); }
