// For json_parity_test: reads one JSON text per line on stdin and prints, per
// input, one line: its canonical text. An input the parser refuses prints
// "error " and the message as a JSON string (so a newline in it stays on one
// line) instead.
#include <iostream>
#include <string>

#include "platform/cpp/json/json.h"

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    try {
      const rocke::json::Value v = rocke::json::parse(line);
      std::cout << rocke::json::canonical(v) << "\n";
    } catch (const rocke::json::ParseError& e) {
      std::cout << "error " << rocke::json::quote(e.what()) << "\n";
    }
  }
  return 0;
}
