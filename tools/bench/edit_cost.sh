#!/usr/bin/env bash
# What one edit re-runs: for each FILE, the tests `bazel test` would re-run
# after a comment is appended to it (the tests that depend on it, as
# //tools:affected selects them), and how long that re-run takes once
# everything else is warm. Prints a Markdown table and writes it to
# docs/figures/edit-cost.md, headed by this command and the date as
# tools/bench/figures.py heads the other benches' files.
#
#   tools/bench/edit_cost.sh [--scope PATTERN] [FILE...]
#       PATTERN: where the selected tests are taken from (default //...; e.g.
#       //library/... for the library's tests alone); FILE default:
#       library/conv/direct_fwd.py
#
# Per FILE: bazel query selects the tests (of PATTERN); `./bazel test` runs them on the
# unedited tree (the warm build: results cached); a comment line unique to
# this run (so no cache holds its results) is appended and the same
# `./bazel test` is timed; the edit is undone. The rows of other commits
# already in the file are kept, so it holds the figure before and after a
# change, each measured by this script at its own commit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/bench/figure.sh
scope=//...
if [[ ${1:-} == --scope ]]; then
  [[ $# -ge 2 ]] || { echo "edit_cost: --scope needs a target pattern, e.g. --scope //library/..." >&2; exit 2; }
  scope=$2
  shift 2
fi
files=("$@")
[[ ${#files[@]} -gt 0 ]] || files=(library/conv/direct_fwd.py)
for file in "${files[@]}"; do
  if [[ ! -f $file ]] || ! git ls-files --error-unmatch "$file" >/dev/null 2>&1; then
    echo "edit_cost: '$file' is not a file git tracks in this checkout; give paths relative to its root, e.g. library/conv/direct_fwd.py" >&2
    exit 2
  fi
  if ! git diff --quiet -- "$file"; then
    echo "edit_cost: '$file' has uncommitted changes, which the bench would undo; commit or stash them first" >&2
    exit 2
  fi
done

mkdir -p /var/cache/rocke/bench
scratch=$(mktemp -d /var/cache/rocke/bench/edit-cost.XXXXXX)
edited=
trap '[[ -z $edited ]] || git checkout -- "$edited"; rm -rf "$scratch"' EXIT

stats() { toolchains/sysroot/root.sh exec python3 tools/bench/bep_stats.py "$@"; }
# The tests of query set $1 that `bazel test` runs (as tools/affected/affected.py's tests_of).
tests_of() {
  local manual='attr(tags, "(^|[\[ ,])manual([\] ,]|$)", $t)'
  ./bazel query --output=label "let r = $1 in let t = tests(\$r except kind(test_suite, \$r)) in \$t except $manual" 2>/dev/null
}

commit=$(git rev-parse --short=12 HEAD)
day=$(date +%Y-%m-%d)
all=$(tests_of "$scope" | wc -l)
rows=() lists=()
for file in "${files[@]}"; do
  label=$(./bazel query --output=label "$file" 2>/dev/null)
  tests_of "rdeps(//..., $label) intersect $scope" >"$scratch/selected"
  n=$(wc -l <"$scratch/selected")
  echo "bench: $file: $n of $all tests; warming them..." >&2
  ./bazel test --target_pattern_file="$scratch/selected" >/dev/null 2>&1 || true
  edited=$file
  printf '# edit_cost: %s\n' "$(date +%s%N)" >>"$file"
  echo "bench: $file edited; re-running its tests..." >&2
  t0=$SECONDS
  status=0
  ./bazel test --target_pattern_file="$scratch/selected" "--build_event_json_file=$scratch/bep.json" >"$scratch/log" 2>&1 || status=$?
  seconds=$((SECONDS - t0))
  git checkout -- "$file"
  edited=
  outcome=passed
  [[ $status -eq 0 ]] || outcome="exit $status: $(grep -c ' FAILED in ' "$scratch/log" || true) failed"
  stats --executed "$scratch/bep.json" >"$scratch/ran"
  # The floor of each test that ran again: the family's floor, or the top floor's (app/).
  floors=$(sed -E 's|^//([^/:]+).*|\1|' "$scratch/ran" | sort | uniq -c | awk '{printf "%s%s %s", sep, $2, $1; sep=", "}')
  rows+=("| $commit | $day | \`$file\` | \`$scope\` | $n of $all | $seconds s | $(stats "$scratch/bep.json") (${floors:-none}); $outcome |")
  lists+=("$commit, \`$file\`, \`$scope\`: ran again: $(paste -sd' ' "$scratch/ran" | sed 's/ /, /g'). Selected: $(paste -sd' ' "$scratch/selected" | sed 's/ /, /g')")
  echo "bench: $file: $n tests, $seconds s" >&2
done

out=docs/figures/edit-cost.md
# The kept rows (and their test lists): all but those of this commit, file and scope.
kept_rows=$(grep -E '^\| [0-9a-f]{12} \|' "$out" 2>/dev/null || true)
kept_lists=$(grep -E '^[0-9a-f]{12}, `' "$out" 2>/dev/null || true)
for file in "${files[@]}"; do
  kept_rows=$(awk -F ' [|] ' -v c="| $commit" -v f="\`$file\`" -v p="\`$scope\`" '!($1 == c && $3 == f && $4 == p)' <<<"$kept_rows")
  kept_lists=$(grep -vF "$commit, \`$file\`, \`$scope\`: " <<<"$kept_lists" || true)
done
table=$(
  printf '| commit | measured | edited file | tests of | tests selected | re-run | test actions |\n|---|---|---|---|---|---|---|\n'
  [[ -z $kept_rows ]] || printf '%s\n' "$kept_rows"
  printf '%s\n' "${rows[@]}"
)
selected=$(
  [[ -z $kept_lists ]] || printf '%s\n' "$kept_lists"
  printf '%s\n' "${lists[@]}"
)
echo "$table"
load=$(cut -d' ' -f1-3 /proc/loadavg)
{
  printf '# What one edit re-runs\n\n'
  printf '`tools/bench/edit_cost.sh --scope %s %s`, measured %s (%s cores, load average %s).\n\n' "$scope" "${files[*]}" "$day" "$(nproc)" "$load"
  printf 'Per edited file: the tests that depend on it (what `//tools:affected` selects for that change), of the tests\n'
  printf '`bazel test PATTERN` runs (PATTERN: the tests of column), and the wall time of `./bazel test` on them after a comment is appended to the file,\n'
  printf 'with everything else warm. Rows of other commits are the figure at that commit, kept by the next run.\n'
  printf 'Test actions: how many of the selected tests ran again (executed) or were cached, and per floor those that ran.\n'
  printf 'A selected test whose inputs keep their digests (a golden test of unchanged IR) is cached. Of the tests under\n'
  printf '`app/`, a test links only the families it builds: the commands and the planner'"'"'s lowering take the registry\n'
  printf '(`app/cli/command_line.py`, `planner.jobs.lower`), and choosing imports no family'"'"'s builder. Those that run the\n'
  printf 'whole program or registry run again after an edit to any family, by design; a rocke_catalog'"'"'s actions and verify test\n'
  printf 'link only the families it names (app/planner/catalog.bzl).\n\n'
  printf '%s\n\n## The tests each edit ran again, and selected\n\n' "$table"
  # One paragraph per row.
  sed '$!G' <<<"$selected"
} | figure_write "$out"
echo "bench: wrote $PWD/$out" >&2
