#!/usr/bin/env bash
# A broken remote cache must not break CI. Fills a scratch cache (nginx from the
# pinned root, as .ci/run starts it) with a real build, then breaks it: corrupts
# the blob of an intermediate output (the pybind probe's object file) and
# deletes the action-cache entry of the link that needs it, deletes the blob of
# another intermediate output (a family's emitted IR), and corrupts the test log
# of a cached test. Builds again with CI's configuration against the broken
# cache and checks that the build is green, that every blob is whole again, and
# that a third build is served from the cache alone. Also checks that CI, when
# given a cache URL, starts no cache of its own and creates no cache folder.
#
#   tools/checks/broken_remote_cache.sh [BAZEL_FLAG...]
#
# Uses its own Bazel output base and no disk cache, so that every fetch goes to
# the scratch cache; on the first free port of ROCKE_CHECK_CACHE_PORT (a port
# or LOW-HIGH; default 18100-18119, so it runs beside CI caches). Prints
# "PASS name" or "FAIL name: ..." per check, then "checks: P passed, F failed".
# Exit status: the number of failed checks (0 when all hold).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/ci/remote_cache.sh

TARGETS=(//toolchains/python:toolchain_test //library/conv:conv_direct_fwd_golden_llvm22)
BIN=bazel-out/k8-fastbuild/bin
OBJECT=$BIN/toolchains/python/_objs/pybind_probe.so/pybind_probe.pic.o
LINKED=$BIN/toolchains/python/pybind_probe.so
EMITTED=$BIN/library/conv/conv_direct_fwd.llvm22.irs.json
TEST_LOG=bazel-out/k8-fastbuild/testlogs/toolchains/python/toolchain_test/test.log

mkdir -p /var/cache/rocke/checks
scratch=$(mktemp -d /var/cache/rocke/checks/broken-remote-cache.XXXXXX)
cache=$scratch/cache
output_base=$scratch/output-base
passed=0 failed=0
pass() { echo "PASS $1" && passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2" && failed=$((failed + 1)); }
finish() {
  ./bazel "--output_base=$output_base" shutdown >/dev/null 2>&1
  remote_cache_stop
  rm -rf "$scratch"
}
trap finish EXIT

# Bazel against the scratch cache, with CI's configuration; output in $scratch/NAME.log.
scratch_bazel() {
  local name=$1
  shift
  ./bazel "--output_base=$output_base" "$@" >"$scratch/$name.log" 2>&1
}
build() {
  local name=$1
  shift
  scratch_bazel "$name" test --config=ci "--remote_cache=$remote_cache_url" --disk_cache= "$@" "${TARGETS[@]}"
}

# CI handed a cache URL must neither start nginx nor create a cache folder.
(
  ROCKE_REMOTE_CACHE=http://127.0.0.1:9/given
  ci_remote_cache "$scratch/given-state" "$scratch/given-cache" &&
    [[ $remote_cache_url == "$ROCKE_REMOTE_CACHE" && -z $remote_cache_pid && ! -e $scratch/given-cache ]]
) && pass "CI given ROCKE_REMOTE_CACHE starts no cache and creates no cache folder" ||
  fail "CI given ROCKE_REMOTE_CACHE starts no cache and creates no cache folder" "$(ls -d "$scratch"/given-* 2>/dev/null)"

ROCKE_REMOTE_CACHE= ROCKE_CACHE_PORT=${ROCKE_CHECK_CACHE_PORT:-18100-18119} ci_remote_cache "$scratch/state" "$cache" || {
  fail "the scratch cache starts" "see above"
  echo "checks: $passed passed, $failed failed"
  exit "$failed"
}

# The sha256 of an output of the scratch build (the name of its blob in the cache).
digest() { sha256sum <"$output_base/execroot/_main/$1" | cut -c1-64; }

if ! build fill "$@"; then
  fail "the scratch cache fills" "the first build failed; last lines of $scratch/fill.log:"
  tail -n 20 "$scratch/fill.log" | sed 's/^/    /'
  echo "checks: $passed passed, $failed failed"
  exit "$failed"
fi
object=$(digest "$OBJECT") linked=$(digest "$LINKED") emitted=$(digest "$EMITTED") test_log=$(digest "$TEST_LOG")
# The link's action-cache entry: the one that names the linked module's digest.
link_entry=$(grep -l -a "$linked" "$cache"/ac/* | head -n 1)
[[ -n $link_entry ]] || fail "the scratch cache holds the outputs to break" "no action-cache entry names the linked module $linked"
for blob in "$object" "$emitted" "$test_log"; do
  [[ -f $cache/cas/$blob ]] || fail "the scratch cache holds the outputs to break" "no blob $blob"
done

corrupt() { printf 'broken' | dd of="$1" bs=1 seek=0 conv=notrunc status=none; }
corrupt "$cache/cas/$object"
corrupt "$cache/cas/$test_log"
rm -f "$cache/cas/$emitted" "$link_entry"

scratch_bazel clean clean
if build broken "$@"; then
  pass "a build against the broken cache is green"
else
  fail "a build against the broken cache is green" "exit $?; last lines of $scratch/broken.log:"
  grep -E 'ERROR|Executed|FAILED' "$scratch/broken.log" | tail -n 8 | sed 's/^/    /'
fi

# Every blob an action-cache entry names (entries hold digests as hex text):
# present and whole. A corrupted blob no entry names any more (the old log of a
# test that ran again) is never served, so it is no damage. The empty blob is
# never stored: Bazel knows its content.
empty=$(sha256sum </dev/null | cut -c1-64)
named=$(cat "$cache"/ac/* | grep -a -o -E '[0-9a-f]{64}' | grep -v "$empty" | sort -u)
bad=$(for blob in $named; do
  [[ $({ sha256sum <"$cache/cas/$blob"; } 2>/dev/null | cut -c1-64) == "$blob" ]] || echo "$blob"
done)
if [[ -z $bad ]]; then
  pass "every blob the action cache names is present and matches its digest ($(wc -w <<<"$named") blobs)"
else
  fail "every blob the action cache names is present and matches its digest" "$(wc -l <<<"$bad") do not"
fi
if [[ $(sha256sum <"$cache/cas/$object" | cut -c1-64) == "$object" ]]; then
  pass "the corrupted intermediate output's blob is rewritten whole"
else
  fail "the corrupted intermediate output's blob is rewritten whole" "cas/$object still does not match"
fi
missing=$(for file in "$cache/cas/$emitted" "$link_entry"; do [[ -f $file ]] || echo "${file#"$cache"/}"; done)
if [[ -z $missing ]]; then
  pass "the deleted blob and action-cache entry are back"
else
  fail "the deleted blob and action-cache entry are back" "still missing: $(paste -sd' ' <<<"$missing")"
fi

scratch_bazel clean-again clean
build repaired "$@"
status=$?
processes=$(grep -E '^INFO: [0-9]+ processes' "$scratch/repaired.log" | tail -n 1)
if [[ $status -eq 0 && $processes == *"remote cache hit"* && $processes != *sandbox* && $processes != *local* ]]; then
  pass "after the repair every action is a remote cache hit (${processes#INFO: })"
else
  fail "after the repair every action is a remote cache hit" "exit $status, ${processes:-no process summary in $scratch/repaired.log}"
fi

echo "checks: $passed passed, $failed failed"
exit "$failed"
