// Translates the C++ engine's exceptions into the Python engine's classes
// for the pybind modules, so that a caller catches the same class from
// either engine: VerifyError -> ir.core.VerifyError, ArchDomainError ->
// lower.flavors.ArchDomainError, a family::SpecError that names its Python
// class (a family's Refusal: conv.img2col.Img2colSpecError) -> that class;
// every other std::invalid_argument (a bad spec, an unknown family, a parse
// error) -> ValueError. Messages unchanged.
#pragma once

namespace rocke::engine {

// Registers the translation; call once from each PYBIND11_MODULE.
void translate_errors();

}  // namespace rocke::engine
