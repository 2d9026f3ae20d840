#!/usr/bin/env bash
# Bazel commands that must FAIL, each with a given message. A rule that stops
# failing (a weakened visibility, a flag that accepts anything) fails this check.
#
#   tools/checks/expected_failures.sh [BAZEL_FLAG...]
#
# Prints "PASS name" or "FAIL name: ..." per check, then "checks: P passed, F failed".
# Exit status: the number of failed checks (0 when all hold).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# name | bazel arguments | text the error must contain
CHECKS=(
  "unknown LLVM version lists the allowed ones|build --//toolchains/llvm:version=21 //toolchains/llvm:current|invalid value '21'. Allowed values are [\"20\", \"22\", \"23\", \"24\"]"
  "a test selection that matches nothing is an error|test --test_tag_filters=flavor=llvm99 //library/conv/...|No test targets were found, yet testing was requested"
)

passed=0 failed=0
for check in "${CHECKS[@]}"; do
  IFS='|' read -r name args expected <<<"$check"
  # shellcheck disable=SC2086 # args is a word list on purpose
  out=$(./bazel $args "$@" 2>&1)
  status=$?
  if [[ $status -ne 0 && $out == *"$expected"* ]]; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name: expected a failure containing: $expected"
    echo "  got exit $status and:"
    printf '%s\n' "$out" | tail -n 15 | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done
echo "checks: $passed passed, $failed failed"
exit "$failed"
