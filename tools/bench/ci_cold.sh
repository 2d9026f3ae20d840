#!/usr/bin/env bash
# A cold `.ci/run`: how long CI takes on a machine that has the pinned root and
# nothing else. Clones COMMIT into a scratch folder and runs its .ci/run with
#   - no disk cache (the clone's user.bazelrc: `build --disk_cache=`, which the
#     platform-only copy carries too);
#   - an empty remote cache: an nginx of this bench's own serving a new folder,
#     handed to .ci/run as ROCKE_REMOTE_CACHE, as a hosted CI hands its cache;
#   - fresh output bases: the clone, and the checks' copies and clones (their
#     paths hang off the clone's new path, tools/ci/state.sh);
#   - an empty check cache (ROCKE_CHECK_RESULTS: a new folder, not the shared
#     /var/cache/rocke/check-results), so every check runs;
#   - the pinned root and the remote executor's environment layer kept: they
#     are built once per machine (tools/bench/workspace.sh measures the root's
#     build).
# Every line of .ci/run's output is time-stamped as it arrives: the figure is
# the whole run's wall time and each phase's (the setup before the test
# command, the test command as .ci/run times it, each check, the clean-up).
# Prints a Markdown table and writes it, whole, to docs/figures/ci-cold.md,
# headed by this command and the date as tools/bench/figures.py heads the
# other benches' files, with the machine's load before and after. It needs a
# quiet machine and about 30 minutes; everything it made is removed at the
# end, output bases included.
#
#   tools/bench/ci_cold.sh [--commit COMMIT] [--scope PATTERN --checks REGEX]
#       COMMIT: what to clone (default HEAD; committed work only).
#       --scope and --checks try the bench's plumbing in a few minutes: the
#       clone's .ci/run tests PATTERN instead of //... and runs only the checks
#       whose script name matches REGEX (an edit committed in the clone). Such
#       a run prints its table but writes no figure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
checkout=$PWD
usage="usage: tools/bench/ci_cold.sh [--commit COMMIT] [--scope PATTERN --checks REGEX]"
commit=HEAD scope= only=
while [[ $# -gt 0 ]]; do
  case $1 in
    --commit | --scope | --checks)
      [[ $# -ge 2 ]] || { echo "ci_cold: $1 needs a value; $usage" >&2; exit 2; }
      case $1 in --commit) commit=$2 ;; --scope) scope=$2 ;; --checks) only=$2 ;; esac
      shift 2
      ;;
    *) echo "ci_cold: unknown argument '$1'; $usage" >&2; exit 2 ;;
  esac
done
if [[ -n $scope$only && ( -z $scope || -z $only ) ]]; then
  echo "ci_cold: --scope and --checks go together (a plumbing run), e.g. --scope //tools/ci/... --checks 'ci_isolation|root_gc'" >&2
  exit 2
fi
rev=$(git rev-parse --verify --quiet "$commit^{commit}") ||
  { echo "ci_cold: '$commit' is not a commit of this checkout; give a branch, tag or hash" >&2; exit 2; }
short=${rev:0:12}
# What building the pinned root costs a machine that lacks it: cited from its
# home, tools/bench/workspace.sh's figure, read now so that a missing one stops
# the bench before its half hour.
workspace=docs/figures/workspace.md
root_build=$(sed -n 's/^| pinned root build[^|]*| \([0-9][0-9]* s\) |$/\1/p' "$workspace")
root_measured=$(sed -n 's/^`tools\/bench\/workspace.sh`, measured \([0-9-]*\) .*/\1/p' "$workspace")
if [[ -z $root_build || -z $root_measured ]]; then
  echo "ci_cold: $workspace has no 'pinned root build' row or no 'measured DATE' line (found '$root_build', '$root_measured'); run tools/bench/workspace.sh to write it" >&2
  exit 2
fi
source tools/ci/state.sh
source tools/ci/remote_cache.sh
source tools/bench/figure.sh

# Under /var/cache/rocke: the pinned root sees it (nginx serves the cache from it).
mkdir -p /var/cache/rocke/bench
scratch=$(mktemp -d /var/cache/rocke/bench/ci-cold.XXXXXX)
clone=$scratch/clone
# The clone's folder is made first, so that its state folder (named after its
# real path, ci_state_dir) is known once, here, for the trap below to remove.
mkdir "$clone"
state=$(ci_state_dir "$clone")
finish() {
  remote_cache_stop
  # The output bases of the clone and of the checks' copy (keyed by their
  # paths, so no later run would reuse them), then the folders.
  local dir
  for dir in "$clone" "$state/platform-only"; do
    [[ -x $dir/bazel ]] && (cd "$dir" && ./bazel clean --expunge >/dev/null 2>&1)
  done
  rm -rf "$scratch" "$state"
}
trap finish EXIT

git clone -q --no-hardlinks "$checkout" "$clone"
git -C "$clone" checkout -q --detach "$rev"
echo "build --disk_cache=" >"$clone/user.bazelrc"
if [[ -n $scope ]]; then
  # The test command (and the README line .ci/run checks it against), and the checks kept.
  sed -i "s|^test_command=(./bazel test //...)\$|test_command=(./bazel test $scope)|" "$clone/.ci/run"
  printf '\n    ./bazel test %s\n' "$scope" >>"$clone/README.md"
  awk -v keep="$only" '/^checks=\($/ { inside = 1 } inside && /^\)$/ { inside = 0 }
    !inside || /^checks=\($/ || match($0, /\|tools\/checks\/[a-z_]+\.sh/) && substr($0, RSTART + 14, RLENGTH - 17) ~ keep' \
    "$clone/.ci/run" >"$scratch/run" && cat "$scratch/run" >"$clone/.ci/run"
  git -C "$clone" -c user.name=ci-cold -c user.email=ci-cold@rocke.invalid commit -q -am "bench: a scoped .ci/run"
fi

remote_cache_start "${ROCKE_CACHE_PORT:-18080-18099}" "$scratch/remote-cache" "$scratch/cache-state" ||
  { echo "ci_cold: the empty remote cache did not start (above)" >&2; exit 1; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench: cold .ci/run of $short in $clone (remote cache $remote_cache_url, empty)..." >&2
start=$(date +%s)
status=0
(cd "$clone" && ROCKE_REMOTE_CACHE=$remote_cache_url ROCKE_CHECK_RESULTS=$scratch/check-results .ci/run) 2>&1 |
  while IFS= read -r line; do printf '%(%s)T %s\n' -1 "$line"; done >"$scratch/ci.log" || status=$?
end=$(date +%s)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
total=$((end - start))
last=$(tail -n 1 "$scratch/ci.log" | cut -d' ' -f2-)

# The phases, from the stamped lines: the setup ends where the test command
# began (its end less its time), each check runs from its "ci: tools/checks/"
# line to the next one (or to the final count), the clean-up after that.
rows=$(awk -v start="$start" -v end="$end" -v test="./bazel test ${scope:-//...}" '
  function close_check(t) { if (name != "") { printf "| %s | %d s | %s |\n", name, t - since, note; name = "" } }
  { t = $1; sub(/^[0-9]+ /, "") }
  /^ci: bazel test finished in [0-9]+ s with exit [0-9]+$/ {
    printf "| setup: root verify and gc, the state folder | %d s | |\n", t - $6 - start
    printf "| `%s` | %d s | exit %s |\n", test, $6, $10; next
  }
  /^ci: bazel: / { sub(/^ci: bazel: /, ""); bazel = $0 }
  /^ci: [0-9]+ remote cache hit/ { hits = $2 }
  /^ci: tools\/checks\/[a-z_]+\.sh/ {
    close_check(t); name = $2; note = ""; since = t; next
  }
  /^ci: [a-z_]+: inputs unchanged since it passed/ { note = "cached (the check cache was not empty)" }
  /^checks: [0-9]+ passed, [0-9]+ failed$/ { note = note (note == "" ? "" : "; ") $2 " passed, " $4 " failed" }
  /^[0-9]+ passed, [0-9]+ failed/ { close_check(t); final = t }
  END {
    close_check(final ? final : end)
    printf "| clean-up: servers stopped | %d s | |\n", end - (final ? final : end)
    printf "| **total** | **%d s (%d min %d s)** | tests: %s; remote cache hits: %d |\n", end - start, (end - start) / 60, (end - start) % 60, bazel, hits
  }' "$scratch/ci.log")

table=$(printf '| phase | wall time | outcome |\n|---|---|---|\n%s\n' "$rows")
# The test command's executed tests: their time summed, and the longest.
longest=$(toolchains/sysroot/root.sh exec python3 tools/bench/bep_stats.py --longest 15 "$state/bep.json" 2>/dev/null || true)
summed=$(head -n 1 <<<"$longest")
tests=$(printf '| test | time |\n|---|---|\n'; tail -n +2 <<<"$longest" | awk '{ printf "| `%s` | %s s |\n", $2, $1 }')
printf '%s\n\n%s\n' "$table" "$tests"
echo "bench: executed tests: ${summed:-no build-event file}" >&2
echo "bench: .ci/run ended '$last' (exit $status) after $total s" >&2
if [[ -n $scope ]]; then
  echo "bench: a plumbing run (--scope $scope --checks '$only'): no figure written" >&2
  exit 0
fi

out=docs/figures/ci-cold.md
{
  printf '# A cold CI run\n\n'
  printf '`tools/bench/ci_cold.sh --commit %s`, measured %s (%s cores, load average %s before, %s after).\n\n' \
    "$short" "$(date +%Y-%m-%d)" "$(nproc)" "$load_before" "$load_after"
  printf '`.ci/run` of commit %s in a fresh clone: no disk cache, an empty remote cache (ROCKE_REMOTE_CACHE), fresh\n' "$short"
  printf 'output bases for the clone and for the checks'"'"' copies, an empty check cache, so every test and every check runs.\n'
  printf 'Kept, as on any machine that ran CI once: the pinned root (%s; a machine without it first builds it,\n' "$(toolchains/sysroot/root.sh key)"
  printf 'which took %s when tools/bench/workspace.sh measured it on %s, %s)\n' "$root_build" "$root_measured" "$workspace"
  printf 'and the remote executor'"'"'s environment layer.\n'
  printf 'The goal (issue 24): under 30 minutes.\n'
  printf 'Each phase as .ci/run prints it; a check'"'"'s time runs from its `ci:` line to the next.\n\n'
  verdict=$( ((total < 1800)) && echo "under the goal's 30 minutes" || echo "over the goal's 30 minutes")
  printf '%s\n\n.ci/run ended `%s` (exit %s), after %s s: %s.\n\n' "$table" "$last" "$status" "$total" "$verdict"
  printf '## The longest tests\n\nThe test command ran %s tests for %s s in all (the times Bazel reports, summed).\n' \
    "$(sed -n 's/.* tests=//p' <<<"$summed")" "$(sed -n 's/^summed=\([0-9]*\) .*/\1/p' <<<"$summed")"
  printf 'The %s longest:\n\n%s\n' "$(($(wc -l <<<"$tests") - 2))" "$tests"
} | figure_write "$out"
echo "bench: wrote $checkout/$out" >&2
