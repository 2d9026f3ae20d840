// One planted clang-tidy finding (modernize-use-nullptr, line 5) that the
// tidy aspect must report: tools/style/tidy_main_test.
#include "planted_dep.h"

int planted_count(const int* p) { return p == 0 ? 0 : 1; }
