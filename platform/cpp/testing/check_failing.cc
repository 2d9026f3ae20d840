// Every kind of check failing once: check_failing_test.sh runs this and
// expects exit status 1 and one FAILED line per check.
#include <stdexcept>

#include "platform/cpp/testing/check.h"

ROCKE_TEST(failing_checks) {
  CHECK(1 + 1 == 3);
  CHECK_EQ(2, 3);
  CHECK_THROWS(std::invalid_argument, throw std::invalid_argument("got"), "expected");
  CHECK_THROWS(std::invalid_argument, (void)0, "never thrown");
}

int main() { return rocke::testing::run_all(); }
