// Prints {"archs": {name: {field: value}}, "banks": {name: {count, bytes}},
// "errors": {probe: message}} for
// arch_parity_test: the C++ table as JSON, and get()'s error for each
// argument.
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "platform/arch/cpp/arch.h"
#include "platform/cpp/json/json.h"

namespace {

using rocke::json::quote;

template <typename T>
std::string list(std::span<const T> xs) {
  std::string out = "[";
  for (const T& x : xs) {
    if (out.size() > 1) out += ", ";
    if constexpr (std::is_same_v<T, std::string_view>) {
      out += quote(x);
    } else {
      out += std::to_string(x);
    }
  }
  return out + "]";
}

std::string arch(const rocke::arch::Arch& a) {
  std::string matrix = "[";
  for (const auto& m : a.matrix) {
    if (matrix.size() > 1) matrix += ", ";
    matrix += "{\"op\": " + quote(m.op) + ", \"m\": " + std::to_string(m.m) + ", \"n\": " + std::to_string(m.n) +
              ", \"k\": " + std::to_string(m.k) + ", \"a\": " + quote(m.a) + ", \"c\": " + quote(m.c) +
              ", \"wave\": " + std::to_string(m.wave) + "}";
  }
  return "{\"name\": " + quote(a.name) + ", \"generation\": " + quote(a.generation) +
         ", \"cus\": " + std::to_string(a.cus) + ", \"xcds\": " + std::to_string(a.xcds) +
         ", \"wave_sizes\": " + list(a.wave_sizes) + ", \"lds_bytes\": " + std::to_string(a.lds_bytes) +
         ", \"max_workgroup_size\": " + std::to_string(a.max_workgroup_size) +
         ", \"waves_per_eu\": " + list(a.waves_per_eu) + ", \"vgprs\": " + std::to_string(a.vgprs) +
         ", \"agprs\": " + std::to_string(a.agprs) + ", \"matrix\": " + matrix + "]" +
         ", \"flavors\": " + list(std::span<const std::string_view>(a.flavors)) +
         ", \"min_llvm\": " + quote(a.min_llvm) + "}";
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "{\"archs\": {";
  for (const auto& a : rocke::arch::all()) {
    out += (out.back() == '{' ? "" : ", ") + quote(a.name) + ": " + arch(a);
  }
  out += "}, \"banks\": {";
  for (const auto& a : rocke::arch::all()) {
    const rocke::arch::LdsBanks banks = rocke::arch::lds_banks(a.name);
    out += (out.back() == '{' ? "" : ", ") + quote(a.name) + ": {\"count\": " + std::to_string(banks.count) +
           ", \"bytes\": " + std::to_string(banks.bytes) + "}";
  }
  out += "}, \"errors\": {";
  for (int i = 1; i < argc; ++i) {
    rocke::json::Value refusal;  // [facts, message], null if none
    try {
      rocke::arch::get(argv[i]);
    } catch (const rocke::arch::UnknownArchError& e) {
      refusal = rocke::json::Array{e.facts(), e.what()};
    }
    out += (i == 1 ? "" : ", ") + quote(argv[i]) + ": " + rocke::json::canonical(refusal);
  }
  std::cout << out << "}}\n";
  return 0;
}
