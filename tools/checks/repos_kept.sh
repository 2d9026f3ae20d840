#!/usr/bin/env bash
# The repositories that read the pinned root (@llvm20..24, @rocke_python)
# are fetched once per root, not once per Bazel server: a fetch rewrites
# files that running actions read (toolchain.json), and Bazel fails such an
# action with "was modified during execution". Fails when:
#   - a server restart fetches one again (its files' change times move);
#   - its fetch record does not watch the root's marker, so a new root would
#     not fetch it again.
#
#   tools/checks/repos_kept.sh [BAZEL_FLAG...]
#
# Prints "PASS name" or "FAIL name: ..." per check, then "checks: P passed, F failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

source tools/checks/report.sh

# Canonical repository name -> a file its fetch writes.
declare -A files=(
  [_main~llvm~llvm20]=toolchain.json
  [_main~llvm~llvm22]=toolchain.json
  [_main~llvm~llvm23]=toolchain.json
  [_main~llvm~llvm24]=toolchain.json
  [_main~python_env~rocke_python]=defs.bzl
)
targets=(@llvm20//:toolchain @llvm22//:toolchain @llvm23//:toolchain @llvm24//:toolchain @rocke_python//:python_headers)
ctimes() {
  for repo in $(printf '%s\n' "${!files[@]}" | sort); do
    echo "$repo $(stat -c %z "$external/$repo/${files[$repo]}" 2>&1)"
  done
}

if ! ./bazel build "$@" "${targets[@]}" >/dev/null 2>&1; then
  fail "repositories: the root's repositories build" "./bazel build ${targets[*]} failed"
else
  external="$(./bazel info "$@" output_base 2>/dev/null)/external"
  before=$(ctimes)
  ./bazel shutdown >/dev/null 2>&1
  ./bazel build "$@" "${targets[@]}" >/dev/null 2>&1
  after=$(ctimes)
  if [[ $before == "$after" ]]; then pass "repositories: a server restart does not fetch them again"
  else fail "repositories: a server restart does not fetch them again: change times moved" "$(diff <(echo "$before") <(echo "$after"))"; fi
  unwatched=()
  for repo in $(printf '%s\n' "${!files[@]}" | sort); do
    grep -q '^FILE:/.rocke-root ' "$external/@$repo.marker" 2>/dev/null || unwatched+=("$repo")
  done
  if ((${#unwatched[@]} == 0)); then pass "repositories: each watches the root's marker /.rocke-root"
  else fail "repositories: each watches the root's marker /.rocke-root: not watched by" "${unwatched[@]}"; fi
fi

report
exit "$failed"
