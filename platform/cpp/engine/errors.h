// Translates the C++ engine's exceptions into the Python engine's classes
// for the pybind modules, so that a caller catches the same class from
// either engine: VerifyError -> ir.core.VerifyError; an errors::FieldError
// (a family's SpecError or Refusal, lower's ArchDomainError, an unknown
// family's FamilyError) -> the Python class it names, with its field, value
// and allowed values as the attributes of platform/errors/errors.py; every
// other std::invalid_argument (a parse error) -> ValueError.
// Messages are the C++ engine's.
#pragma once

namespace rocke::engine {

// Registers the translation; call once from each PYBIND11_MODULE.
void translate_errors();

}  // namespace rocke::engine
