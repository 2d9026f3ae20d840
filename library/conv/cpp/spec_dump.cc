// For spec_parity_test: each line of the file argv[1] is a JSON value; print
// one canonical JSON line per input, ["ok", to_json()] or
// parity::refused(e), what ConvSpec::from_json made of it.
#include "library/conv/cpp/spec.h"
#include "platform/cpp/json/json.h"
#include "platform/family/cpp/family.h"
#include "platform/parity/dump_main.h"

namespace {

using namespace rocke;

json::Array answer(const json::Value& request) {
  try {
    return {"ok", conv::ConvSpec::from_json(request).to_json()};
  } catch (const family::SpecError& e) {
    return parity::refused(e);
  }
}

}  // namespace

int main(int argc, char** argv) { return rocke::parity::dump_main(argc, argv, "spec_dump", answer); }
