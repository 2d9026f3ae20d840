// What a C++ kernel family gives the emitter, mirroring
// platform/family/family.py. A family registers itself from its own
// cc_library (alwayslink), so an application that links a family archive
// (//library:rocke_library) can emit its kernels by name:
//
//   static const rocke::family::Registration kConvDirect({
//       .name = "conv_direct_fwd",
//       .build = &build,          // (Case) -> Kernel
//       .spec_json = &normalise,  // spec JSON -> the spec's to_json()
//   });
//
// Cases come from the family's case list (NAME.cases.json, written by the
// Python emitter): both engines build from the same list.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "platform/cpp/json/json.h"
#include "platform/errors/cpp/errors.h"
#include "platform/ir/cpp/core.h"

namespace rocke::family {

struct Case {
  std::string id;
  std::string arch;
  json::Value spec;  // as the spec class's to_json() writes it
};

// A spec the family refuses: an errors::FieldError whose python_class is the
// Python spec class's error ("conv.spec.SpecError"), which the pybind
// engines raise and the emitter names.
class SpecError : public errors::FieldError {
 public:
  using errors::FieldError::FieldError;
};

// A family's refusal of a valid problem another family takes (Python's
// family.family.Refusal, which that family's error class subclasses): the
// message names the field and the family that takes it, and the emitter
// records it as an expected rejection, `reject ID arch=ARCH error=CLASS`.
class Refusal : public SpecError {
 public:
  using SpecError::SpecError;
};

// An unknown family name, a malformed case list, or a family registered
// twice: an errors::FieldError of Python's family.family.FamilyError, with
// the same facts as Python's for a case list (cases_json.read).
class FamilyError : public errors::FieldError {
 public:
  FamilyError(std::string field, json::Value value, json::Value allowed, const std::string& message)
      : errors::FieldError("family.family.FamilyError", std::move(field), std::move(value), std::move(allowed),
                           message) {}
};

struct Family {
  std::string name;  // Family.name in Python: conv_direct_fwd
  // The case's kernel, as KernelBuilder::finish returns it: verified, so the
  // engine lowers it without verifying it again (SpecError for a bad spec,
  // ir::VerifyError for a bad kernel).
  std::function<std::unique_ptr<ir::Kernel>(const Case&)> build;
  // The spec read and written back (Python's Spec.from_json(s).to_json()):
  // defaults filled in, every field validated (SpecError).
  std::function<json::Value(const json::Value&)> spec_json;
};

// Registers a family at static-initialisation time. It never throws (that
// would end the program before main): a family registered twice, or without
// a name, build or spec_json, is recorded, and get() and names() throw
// FamilyError naming it.
struct Registration {
  explicit Registration(const Family& family);
};

// The family called `name`; FamilyError naming the registered ones otherwise
// (or naming a failed registration).
const Family& get(std::string_view name);
// Every registered family's name, sorted (FamilyError after a failed registration).
std::vector<std::string> names();

// The cases of a case list (cases_json.render's text) for `family`;
// FamilyError naming what is wrong (not the format, another family's list).
std::vector<Case> read_cases(std::string_view text, std::string_view family);
// The same for the family `fam`, each spec read by its spec_json as
// cases_json.read reads it: a spec it refuses is a FamilyError with the facts
// of Python's (field "case list of NAME: cases[I].spec", the spec received).
std::vector<Case> read_cases(std::string_view text, const Family& fam);

// One entry of a case list ({"arch": ..., "id": ..., "spec": {...}});
// FamilyError prefixed with `where` naming a missing or mistyped field.
Case read_case(const json::Value& entry, std::string_view where);

// family.representatives: the ids of the cases whose IR a golden keeps.
std::vector<std::string> representatives(const std::vector<const Case*>& emitted);

}  // namespace rocke::family
