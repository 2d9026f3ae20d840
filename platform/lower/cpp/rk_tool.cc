// rk_tool: reads .rk kernels, parses them, and prints them back or lowers
// them, for the parity tests against Python (rk_parity_test.py).
//
// Requests on stdin, one after another: a line "MODE FLAVOR LENGTH" (MODE
// print or lower; FLAVOR "-" for print), then LENGTH bytes of .rk text. For
// each, a line "STATUS LENGTH" on stdout and LENGTH bytes: the printed text
// or LLVM IR for STATUS "ok", else the message of the error, STATUS its
// class (VerifyError, LiteralError); for ArchDomainError its facts instead
// (errors::FieldError::facts, canonical JSON), and for ParseError [facts,
// message], which the test compares (errors.check_parity), as each engine
// words its own message.
#include <cstdio>
#include <iostream>
#include <string>

#include "platform/ir/cpp/literals.h"
#include "platform/ir/cpp/parser.h"
#include "platform/ir/cpp/printer.h"
#include "platform/lower/cpp/lower.h"

namespace {

std::string run(const std::string& mode, const std::string& flavor, const std::string& text, std::string& status) {
  status = "ok";
  try {
    std::unique_ptr<rocke::ir::Kernel> kernel = rocke::ir::parse(text);
    if (mode == "print") return rocke::ir::print_kernel(*kernel);
    return rocke::lower::lower(*kernel, flavor);
  } catch (const rocke::ir::ParseError& e) {
    status = "ParseError";
    return rocke::json::canonical(rocke::json::Array{e.facts(), e.what()});
  } catch (const rocke::ir::VerifyError& e) {
    status = "VerifyError";
    return e.what();
  } catch (const rocke::lower::ArchDomainError& e) {
    status = "ArchDomainError";
    return rocke::json::canonical(e.facts());
  } catch (const rocke::ir::LiteralError& e) {
    status = "LiteralError";
    return e.what();
  }
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::string mode, flavor;
  size_t length;
  while (std::cin >> mode >> flavor >> length) {
    if (mode != "print" && mode != "lower") {
      std::cerr << "rk_tool: expected MODE print or lower, got " << mode << "\n";
      return 2;
    }
    std::cin.get();  // the newline ending the request line
    std::string text(length, '\0');
    if (!std::cin.read(text.data(), static_cast<std::streamsize>(length))) {
      std::cerr << "rk_tool: expected " << length << " bytes of .rk text, got fewer\n";
      return 2;
    }
    std::string status;
    std::string out = run(mode, flavor, text, status);
    std::cout << status << " " << out.size() << "\n" << out;
  }
  std::cout.flush();
  return 0;
}
