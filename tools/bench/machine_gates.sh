#!/usr/bin/env bash
# How long every family's machine gate takes on one flavor (issue 24's goal:
# under 10 minutes on this 2-core machine). Selects the tests tagged both
# `machine` and `flavor=FLAVOR` (the *_can_fail probes included), builds what
# they read, then times `./bazel test` of them with cached results refused, so
# each gate runs its launches again. Writes the figure, with each test's own
# time, to docs/figures/machine-gates.md (whole, atomically), headed by this
# command and the date as tools/bench/figures.py heads the other benches'
# files.
#
#   tools/bench/machine_gates.sh [FLAVOR]     FLAVOR: llvm20, llvm22, llvm23 (default) or llvm24
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/bench/figure.sh
flavor=${1:-llvm23}
[[ $flavor =~ ^llvm(20|22|23|24)$ ]] || { echo "machine_gates: '$flavor' is not a flavor; give llvm20, llvm22, llvm23 or llvm24" >&2; exit 2; }
mapfile -t tests < <(./bazel query "attr(tags, '\\bmachine\\b', tests(//...)) intersect attr(tags, '\\bflavor=$flavor\\b', tests(//...))" 2>/dev/null)
[[ ${#tests[@]} -gt 0 ]] || { echo "machine_gates: no test is tagged both machine and flavor=$flavor" >&2; exit 1; }
echo "machine_gates: ${#tests[@]} tests; building their inputs..." >&2
./bazel build "${tests[@]}" >/dev/null 2>&1 || { echo "machine_gates: building the tests failed; run ./bazel build on them to see why" >&2; exit 1; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$SECONDS
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
./bazel test --nocache_test_results --test_summary=short "${tests[@]}" >"$log" 2>&1 || status=$?
seconds=$((SECONDS - t0))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
outcome=$(grep -E '^Executed [0-9]+ out of' "$log" | tail -1)
[[ $status -eq 0 ]] || { tail -20 "$log" >&2; echo "machine_gates: a gate failed (above); no figure written" >&2; exit 1; }

fig=docs/figures/machine-gates.md
{
  echo "# Every machine gate on one flavor"
  echo
  echo "\`tools/bench/machine_gates.sh $flavor\`, measured $(date -u +%F) at $(git rev-parse --short=12 HEAD) ($(nproc) cores, load"
  echo "average $load_before before, $load_after after). The tests tagged \`machine\` and \`flavor=$flavor\`, their inputs"
  echo "built first, run again with cached results refused. Issue 24's goal: under 10 minutes."
  echo
  echo "**${#tests[@]} tests in $((seconds / 60)) min $((seconds % 60)) s** (${outcome})."
  echo
  echo "| test | time |"
  echo "|---|---|"
  grep -E '^//.* PASSED in ' "$log" | sed -E 's/^(\/\/[^ ]+) +PASSED in ([0-9.]+s)$/| `\1` | \2 |/' | sort -t'|' -k3 -rn -s
} | figure_write "$fig"
cat "$fig"
echo "machine_gates: wrote $fig" >&2
