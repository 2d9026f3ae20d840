#!/bin/sh
# A failing CHECK must fail the test binary: check_failing exits 1 and names
# each of its four failed checks.
out=$("$1" 2>&1)
status=$?
fail() { echo "check_failing_test: $1"; echo "$out"; exit 1; }
[ "$status" = 1 ] || fail "expected exit status 1, got $status"
[ "$(echo "$out" | grep -c ': FAILED: ')" = 4 ] || fail "expected 4 FAILED lines"
echo "$out" | grep -q 'FAILED: CHECK(1 + 1 == 3)' || fail "expected the CHECK expression named"
echo "$out" | grep -q 'expected: expected' || fail "expected the wrong message shown"
echo "$out" | grep -q 'did not throw' || fail "expected the missing throw named"
echo "$out" | grep -q '1 tests, 4 failed checks' || fail "expected the summary"
echo "check_failing_test: ok"
