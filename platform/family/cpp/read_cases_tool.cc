// For emit_identity_test: `read_cases_tool FAMILY PATH` reads the case list
// at PATH for the registered FAMILY with read_cases, specs included, as
// rocke-emit does, and prints its refusal as JSON, [facts, message]
// (errors.check_parity), or null if it takes the list.
#include <fstream>
#include <iostream>
#include <sstream>

#include "platform/cpp/json/json.h"
#include "platform/family/cpp/family.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: read_cases_tool FAMILY PATH\n";
    return 2;
  }
  std::ifstream in(argv[2], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  rocke::json::Value out;
  try {
    rocke::family::read_cases(text.str(), rocke::family::get(argv[1]));
  } catch (const rocke::family::FamilyError& e) {
    out = rocke::json::Array{e.facts(), e.what()};
  }
  std::cout << rocke::json::canonical(out) << "\n";
  return 0;
}
