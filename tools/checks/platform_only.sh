#!/usr/bin/env bash
# A copy of the checkout with the platform floor only (no library/,
# goldens/library/ and catalog/, no top floor: app/ and the //tools aliases)
# still builds and gates green: platform never needs what is above it. The
# copy runs with this checkout's user.bazelrc, if any.
#
#   tools/checks/platform_only.sh [BAZEL_FLAG...]
#
# The copy lives at a fixed path of this checkout's own (tools/ci/state.sh:
# later runs reuse its Bazel output base, other checkouts never touch it); its
# Bazel server is shut down at the end. Prints "PASS name" or
# "FAIL name: ..." and "checks: P passed, F failed"; exit status: failures.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/ci/state.sh
copy=$(ci_state_dir .)/platform-only
name="platform-only copy (no library/, no app/) builds and tests green"
# What the copy leaves out: the library's floor and the top floor.
above='^(library|goldens/library|catalog|app)/|^tools/BUILD.bazel$'

rm -rf "$copy" && mkdir -p "$copy"
# Tracked and new files alike (what the tests here would see), minus library.
git ls-files -z --cached --others --exclude-standard |
  grep -zvE "$above" |
  xargs -0 cp --parents -t "$copy" 2>/dev/null
# The user's own flags (user.bazelrc, which git ignores) hold in the copy too:
# a disk cache turned off (a cold CI run, tools/bench/ci_cold.sh) stays off.
[[ ! -f user.bazelrc ]] || cp user.bazelrc "$copy/"
missing=$(git ls-files --cached --others --exclude-standard | grep -vE "$above" | while read -r f; do [[ -e $copy/$f || ! -e $f ]] || echo "$f"; done)
if [[ -n $missing || -e $copy/library || -e $copy/goldens/library || -e $copy/catalog || -e $copy/app ]]; then
  echo "FAIL $name: the copy at $copy is not what it should be (missing: ${missing:-none})"
  echo "checks: 0 passed, 1 failed"
  exit 1
fi

cd "$copy"
out=$(./bazel test "$@" -- //platform/... //toolchains/... //tools/... 2>&1)
status=$?
./bazel shutdown >/dev/null 2>&1
summary=$(grep -E '^Executed [0-9]+ out of [0-9]+ tests?:' <<<"$out" | tail -n 1)
if [[ $status -eq 0 ]]; then
  echo "PASS $name: ${summary:-no summary}"
  echo "checks: 1 passed, 0 failed"
  exit 0
fi
echo "FAIL $name: bazel exit $status; ${summary:-no test summary}"
grep -E '^(ERROR|FAIL)|FAILED|NO STATUS' <<<"$out" | head -n 20 | sed 's/^/    /'
echo "checks: 0 passed, 1 failed"
exit 1
