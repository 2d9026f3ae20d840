# The checks' report, sourced by the scripts in tools/checks: "PASS name" or
# "FAIL name" with its details indented below, then (report) the line
# "checks: P passed, F failed" that .ci/run adds up.
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
# fail NAME [DETAIL...]: one indented line per detail line.
fail() {
  echo "FAIL $1"
  shift
  printf '%s\n' "$@" | sed 's/^/    /'
  failed=$((failed + 1))
}
report() { echo "checks: $passed passed, $failed failed"; }
