// A tiny assertion harness for rocke's cc_tests (the root has no gtest).
//
//   ROCKE_TEST(arch_get) { CHECK_EQ(rocke::arch::get("gfx942").cus, 304); }
//   int main() { return rocke::testing::run_all(); }
//
// A failed CHECK prints file:line, the expression and both values, and the
// test goes on; run_all() returns 1 if any check failed or no test ran, so a
// failing check fails the cc_test. check_test proves it.
#pragma once

#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace rocke::testing {

struct Test {
  const char* name;
  void (*body)();
};

inline std::vector<Test>& registry() {
  static std::vector<Test> tests;
  return tests;
}

inline int& failures() {
  static int n = 0;
  return n;
}

struct Register {
  Register(const char* name, void (*body)()) { registry().push_back({name, body}); }
};

inline void fail(const char* file, int line, const std::string& what) {
  ++failures();
  std::cerr << file << ":" << line << ": FAILED: " << what << "\n";
}

template <typename A, typename B>
void check_eq(const A& a, const B& b, const char* sa, const char* sb, const char* file, int line) {
  if (a == b) return;
  std::ostringstream s;
  s << sa << " == " << sb << "\n    left:  " << a << "\n    right: " << b;
  fail(file, line, s.str());
}

// Runs `body`, which must throw E whose what() is exactly `message`.
template <typename E>
void check_throws(const std::function<void()>& body, std::string_view message, const char* expr, const char* file,
                  int line) {
  try {
    body();
  } catch (const E& e) {
    if (e.what() != message) {
      fail(file, line,
           std::string(expr) + " threw\n    got:      " + e.what() + "\n    expected: " + std::string(message));
    }
    return;
  } catch (const std::exception& e) {
    fail(file, line, std::string(expr) + " threw another exception: " + e.what());
    return;
  }
  fail(file, line, std::string(expr) + " did not throw");
}

inline int run_all() {
  if (registry().empty()) {
    std::cerr << "FAILED: no test ran\n";
    return 1;
  }
  for (const Test& t : registry()) {
    int before = failures();
    t.body();
    std::cerr << (failures() == before ? "PASS " : "FAIL ") << t.name << "\n";
  }
  std::cerr << registry().size() << " tests, " << failures() << " failed checks\n";
  return failures() == 0 ? 0 : 1;
}

}  // namespace rocke::testing

#define ROCKE_TEST(name)                                                              \
  static void rocke_test_##name();                                                    \
  static ::rocke::testing::Register rocke_register_##name(#name, &rocke_test_##name); \
  static void rocke_test_##name()

#define CHECK(cond) ((cond) ? (void)0 : ::rocke::testing::fail(__FILE__, __LINE__, "CHECK(" #cond ")"))

// CHECK, and on failure the test stops: for what the rest of it needs (an
// optional's value before its fields are read).
#define REQUIRE(cond)                                                   \
  do {                                                                  \
    if (!(cond)) {                                                      \
      ::rocke::testing::fail(__FILE__, __LINE__, "REQUIRE(" #cond ")"); \
      return;                                                           \
    }                                                                   \
  } while (0)

#define CHECK_EQ(a, b) ::rocke::testing::check_eq((a), (b), #a, #b, __FILE__, __LINE__)

#define CHECK_THROWS(E, expr, message) \
  ::rocke::testing::check_throws<E>([&] { (void)(expr); }, (message), #expr, __FILE__, __LINE__)
