#!/usr/bin/env bash
# Regenerates count_results_test.py's data: each NAME.bep.json is the build-event
# file of a real `./bazel test` run, and NAME.summary holds Bazel's own summary
# of it (its "Executed ... tests: ..." line, or "none" when it printed none).
#
#   tools/ci/testdata/generate.sh
#
#   green             three tests that pass
#   test_failure      a pytest selection (-k) that only helpers_test's tests
#                     match: ir_test collects nothing and fails
#   build_failure     a linker flag ld rejects, so toolchain_test fails to build
#                     once its C++ is compiled again (a new -D each time, a few
#                     seconds); two cached tests pass meanwhile, and two that
#                     must run again (--runs_per_test), one at a time, are
#                     skipped when Bazel stops
#   analysis_failure  the layering probe (not visible) beside a test: nothing runs
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
out=tools/ci/testdata

# name | bazel test arguments
RUNS=(
  "green|//platform/ir:ir_test //platform/helpers:helpers_test //toolchains/python:toolchain_test"
  "test_failure|//platform/ir:ir_test //platform/helpers:helpers_test --test_arg=-k --test_arg=split"
  "build_failure|//platform/ir:ir_test //platform/helpers:helpers_test //toolchains/python:toolchain_test //platform/ir:fuzz_test //library/conv:conv_img2col_numeric --copt=-DROCKE_BEP_DATA=$(date +%s%N) --linkopt=-Wl,--no-such-option-for-rocke --runs_per_test=fuzz_test,numeric@2 --local_test_jobs=1"
  "analysis_failure|//tools/layering_probe:platform_uses_library //platform/ir:ir_test"
)

for run in "${RUNS[@]}"; do
  IFS='|' read -r name args <<<"$run"
  # shellcheck disable=SC2086 # args is a word list on purpose
  console=$(./bazel test --color=no --curses=no $args "--build_event_json_file=$PWD/$out/$name.bep.json" 2>&1)
  summary=$(grep -E '^Executed [0-9]+ out of [0-9]+ tests?' <<<"$console" | tail -n 1)
  echo "${summary:-none}" >"$out/$name.summary"
  echo "$name: ${summary:-no summary line}"
done
