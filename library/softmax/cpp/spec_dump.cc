// For spec_parity_test: each line of the file argv[1] is a JSON spec
// (SoftmaxSpec::from_json); print one canonical JSON line per input:
// ["ok", to_json()] or parity::refused(e) (a SpecError).
#include "library/softmax/cpp/spec.h"
#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/parity/dump_main.h"

namespace {

using namespace rocke;

json::Array answer(const json::Value& request) {
  try {
    return {"ok", softmax::SoftmaxSpec::from_json(request).to_json()};
  } catch (const errors::FieldError& e) {
    return parity::refused(e);
  }
}

}  // namespace

int main(int argc, char** argv) { return rocke::parity::dump_main(argc, argv, "spec_dump", answer); }
