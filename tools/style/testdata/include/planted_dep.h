// The header tools/style/testdata/planted.cc finds only by its library's
// `includes` path (tidy_main_test: the aspect derives that flag).
#ifndef ROCKE_TOOLS_STYLE_TESTDATA_PLANTED_DEP_H_
#define ROCKE_TOOLS_STYLE_TESTDATA_PLANTED_DEP_H_

int planted_count(const int* p);

#endif  // ROCKE_TOOLS_STYLE_TESTDATA_PLANTED_DEP_H_
