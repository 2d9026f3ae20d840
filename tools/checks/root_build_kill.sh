#!/usr/bin/env bash
# A pinned-root build cannot outlive the root.sh that started it. Kills root.sh
# in the middle of a real build (once with SIGTERM, once with SIGKILL) and
# checks that no process of that build survives and that the root's lock is
# free at once (an orphaned build used to hold it, so the next ./bazel waited
# for a build whose result it then threw away).
#
#   tools/checks/root_build_kill.sh
#
# The builds go into a scratch ROCKE_ROOTS under /var/cache/rocke/checks and
# reach debootstrap, so the Debian mirror must be reachable. Prints
# "PASS name" or "FAIL name: ..." per check, then "checks: P passed, F failed".
# Exit status: the number of failed checks (0 when all hold).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

mkdir -p /var/cache/rocke/checks
scratch=$(mktemp -d /var/cache/rocke/checks/root-build-kill.XXXXXX)
key=$(toolchains/sysroot/root.sh key)
passed=0 failed=0

pass() { echo "PASS $1" && passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2" && failed=$((failed + 1)); }

# "PID STARTTIME" of every process below PID (the start time tells a process
# from a later one that reuses its number).
descendants() {
  local child start
  for child in $(grep -l "^PPid:[[:space:]]*$1\$" /proc/[0-9]*/status 2>/dev/null | cut -d/ -f3); do
    start=$(started "$child")
    [[ -n $start ]] || continue # it ended meanwhile
    echo "$child $start"
    descendants "$child"
  done
}
started() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }

# The processes of SNAPSHOT ("PID STARTTIME" lines) that still run. A zombie
# (state Z: dead, holding nothing, waiting for its new parent to reap it) does not.
alive() {
  local pid start
  while read -r pid start; do
    [[ -n $pid && $(started "$pid") == "$start" ]] || continue
    [[ $(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1) == Z ]] || echo "$pid"
  done <<<"$1"
}

# Starts a build, kills root.sh with SIGNAL once debootstrap runs, then checks.
kill_mid_build() {
  local signal=$1 roots=$scratch/$1 log=$scratch/$1.log
  ROCKE_ROOTS=$roots setsid toolchains/sysroot/root.sh path >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 300); do
    grep -q '\[2/7' "$log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  sleep 3
  local build
  build=$(descendants "$pid")
  if [[ $(wc -l <<<"$build") -lt 2 ]] || ! grep -q '\[2/7' "$log"; then
    fail "SIG$signal: a build was running when root.sh was killed" "it never reached debootstrap; log:"
    sed 's/^/    /' "$log"
    kill -KILL -- "-$pid" 2>/dev/null
    return
  fi
  kill "-$signal" "$pid"
  wait "$pid" 2>/dev/null
  local left
  for _ in $(seq 50); do
    left=$(alive "$build")
    [[ -z $left ]] && break
    sleep 0.2
  done
  if [[ -z $left ]]; then
    pass "SIG$signal to root.sh mid-build: none of its $(wc -l <<<"$build") build processes survives"
  else
    fail "SIG$signal to root.sh mid-build: none of its build processes survives" \
      "$(wc -l <<<"$left") still run: $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-60; done | head -n 3 | paste -sd';')"
  fi
  if flock -n "$roots/.locks/$key.lock" true; then
    pass "SIG$signal to root.sh mid-build: the root's lock is free at once"
  else
    fail "SIG$signal to root.sh mid-build: the root's lock is free at once" "an orphan still holds $roots/.locks/$key.lock"
  fi
  # Orphans of a build that escaped (the failure above) are ours to end.
  for p in $(alive "$build"); do kill -KILL "$p" 2>/dev/null; done
  kill -KILL -- "-$pid" 2>/dev/null
  return 0
}

kill_mid_build TERM
kill_mid_build KILL
sleep 1
rm -rf "$scratch"
echo "checks: $passed passed, $failed failed"
exit "$failed"
