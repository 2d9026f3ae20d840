// The harness itself: passing checks pass; check_failing (a binary whose
// checks fail on purpose) must exit 1 and name each failure, which
// check_failing_test.sh asserts.
#include "platform/cpp/testing/check.h"

#include <stdexcept>
#include <string>

ROCKE_TEST(passing_checks) {
  CHECK(1 + 1 == 2);
  CHECK_EQ(std::string("a") + "b", std::string("ab"));
  CHECK_THROWS(std::invalid_argument, throw std::invalid_argument("bad"), "bad");
}

int main() { return rocke::testing::run_all(); }
