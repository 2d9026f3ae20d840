// For json_parity_test: reads one JSON text per line on stdin and prints, per
// input, two lines: its canonical text, then its repr() as a JSON string (so
// a newline in it stays on one line). An input the parser refuses prints
// "error" and the message as a JSON string instead.
#include <iostream>
#include <string>

#include "platform/cpp/json/json.h"

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    try {
      const rocke::json::Value v = rocke::json::parse(line);
      std::cout << rocke::json::canonical(v) << "\n" << rocke::json::quote(rocke::json::repr(v)) << "\n";
    } catch (const rocke::json::ParseError& e) {
      std::cout << "error\n" << rocke::json::quote(e.what()) << "\n";
    }
  }
  return 0;
}
