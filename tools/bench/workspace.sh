#!/usr/bin/env bash
# Measures the workspace, prints a Markdown table and writes it, whole, to
# docs/figures/workspace.md (headed by this command and the date, as
# tools/bench/figures.py heads the other benches' files):
#   - building the pinned root from nothing (into a scratch roots folder);
#   - a cold `./bazel test //...` (expunged output base, no disk cache);
#   - a no-op `./bazel test //...`;
#   - a conv-only edit (a line appended to library/conv/direct_fwd.py, undone
#     at the end): `./bazel test //...` after it, how many tests ran, and how
#     many of them were platform tests (the target is zero);
#   - the same conv tests cold, for comparison;
#   - .ci/run from a fresh clone against an empty remote cache, then from a
#     second fresh clone in another folder against the cache the first filled,
#     with its cache hits and the number of test actions it executed (the
#     target is zero).
# Takes about 15 minutes. Run from the checkout: tools/bench/workspace.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/bench/figure.sh
checkout=$PWD
rows=()
row() { rows+=("| $1 | $2 |"); echo "bench: $1: $2" >&2; }
timed() { local t0=$SECONDS; "$@" >/dev/null 2>&1 || true; echo $((SECONDS - t0)); }
stats() { toolchains/sysroot/root.sh exec python3 tools/bench/bep_stats.py "$@"; }
source tools/ci/state.sh

# Under /var/cache/rocke, which ./bazel mounts inside the root (for BEP files).
mkdir -p /var/cache/rocke/bench
scratch=$(mktemp -d /var/cache/rocke/bench/run.XXXXXX)
edited=library/conv/direct_fwd.py
# The CI clones' state folders (ci_state_dir) go with them.
states=()
trap 'git checkout -- "$edited"; rm -rf "$scratch" "${states[@]}"' EXIT

echo "bench: building a pinned root from nothing..." >&2
row "pinned root build, fresh" "$(ROCKE_ROOTS=$scratch/roots timed toolchains/sysroot/root.sh path) s"
rm -rf "$scratch/roots"

echo "bench: cold test run..." >&2
./bazel clean --expunge >/dev/null 2>&1
row "cold \`./bazel test //...\` (no caches, server start included)" \
  "$(timed ./bazel test --disk_cache= "--build_event_json_file=$scratch/cold.json" //...) s, $(stats "$scratch/cold.json")"

./bazel test //... >/dev/null 2>&1
t0=$(date +%s%N)
./bazel test //... >/dev/null 2>&1
ms=$((($(date +%s%N) - t0) / 1000000))
row "no-op \`./bazel test //...\`" "$((ms / 1000)).$(printf '%03d' $((ms % 1000))) s"

echo "bench: conv-only edit..." >&2
# A new line each run, so no cache already holds its results.
printf '\n# bench: a conv-only edit, %s\n' "$(date +%s%N)" >>"$edited"
row "\`./bazel test //...\` after a conv-only edit" \
  "$(timed ./bazel test "--build_event_json_file=$scratch/edit.json" //...) s, all: $(stats "$scratch/edit.json"); platform: $(stats "$scratch/edit.json" //platform/)"
git checkout -- "$edited"

./bazel clean --expunge >/dev/null 2>&1
row "the conv tests cold (\`./bazel test //library/conv/...\`, no caches)" \
  "$(timed ./bazel test --disk_cache= "--build_event_json_file=$scratch/conv.json" //library/conv/...) s, $(stats "$scratch/conv.json")"

# Each CI run is a fresh clone in its own folder with no disk cache, so only
# the remote cache can answer: the first fills it, the second is measured.
ci_clone() {
  git clone -q "$checkout" "$1"
  states+=("$(ci_state_dir "$1")")
  echo "build --disk_cache=" >"$1/user.bazelrc"
  (cd "$1" && .ci/run >"$1.log" 2>&1) || true
}
echo "bench: filling an empty remote cache with .ci/run from a fresh clone..." >&2
rm -rf /var/cache/rocke/remote-cache
t0=$SECONDS
ci_clone "$scratch/clone-1"
row "fresh clone, empty remote cache (.ci/run)" "$((SECONDS - t0)) s, $(stats "$(ci_state_dir "$scratch/clone-1")/bep.json"), last line: $(tail -n 1 "$scratch/clone-1.log")"
echo "bench: CI-style run from a second fresh clone..." >&2
t0=$SECONDS
ci_clone "$scratch/clone-2"
hits=$(grep -oE '[0-9]+ remote cache hit' "$scratch/clone-2.log" | tail -n 1)
row "another fresh clone, warm remote cache (.ci/run)" "$((SECONDS - t0)) s, ${hits:-0 remote cache hit}, $(stats "$(ci_state_dir "$scratch/clone-2")/bep.json"), last line: $(tail -n 1 "$scratch/clone-2.log")"

table=$(printf '| measurement | figure |\n|---|---|\n'; printf '%s\n' "${rows[@]}")
echo "$table"
out=docs/figures/workspace.md
load=$(cut -d' ' -f1-3 /proc/loadavg)
printf '# The workspace: the root, the test suite, CI\n\n`tools/bench/workspace.sh`, measured %s (%s cores, load average %s).\n\n%s\n' \
  "$(date +%Y-%m-%d)" "$(nproc)" "$load" "$table" | figure_write "$out"
echo "bench: wrote $checkout/$out" >&2
