#!/usr/bin/env bash
# Measures the workspace and prints a Markdown table for the README:
#   - building the pinned root from nothing (into a scratch roots folder);
#   - a cold `./bazel test //...` (expunged output base, no disk cache);
#   - a no-op `./bazel test //...`;
#   - a conv-only edit (a line appended to library/conv/direct_fwd.py, undone
#     at the end): `./bazel test //...` after it, how many tests ran, and how
#     many of them were platform tests (the target is zero);
#   - the same conv tests cold, for comparison;
#   - a CI-style .ci/run from a fresh clone in another folder, against the
#     remote cache that a first .ci/run warmed, with its cache hits and the
#     number of test actions it executed (the target is zero).
# Takes about 15 minutes. Run from the checkout: tools/bench/workspace.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
checkout=$PWD
rows=()
row() { rows+=("| $1 | $2 |"); echo "bench: $1: $2" >&2; }
timed() { local t0=$SECONDS; "$@" >/dev/null 2>&1 || true; echo $((SECONDS - t0)); }
stats() { toolchains/sysroot/root.sh exec python3 tools/bench/bep_stats.py "$@"; }

# Under /var/cache/rocke, which ./bazel mounts inside the root (for BEP files).
mkdir -p /var/cache/rocke/bench
scratch=$(mktemp -d /var/cache/rocke/bench/run.XXXXXX)
edited=library/conv/direct_fwd.py
trap 'git checkout -- "$edited"; rm -rf "$scratch"' EXIT

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
printf '\n# bench: a conv-only edit\n' >>"$edited"
row "\`./bazel test //...\` after a conv-only edit" \
  "$(timed ./bazel test "--build_event_json_file=$scratch/edit.json" //...) s, all: $(stats "$scratch/edit.json"); platform: $(stats "$scratch/edit.json" //platform/)"
git checkout -- "$edited"

./bazel clean --expunge >/dev/null 2>&1
row "the conv tests cold (\`./bazel test //library/conv/...\`, no caches)" \
  "$(timed ./bazel test --disk_cache= "--build_event_json_file=$scratch/conv.json" //library/conv/...) s, $(stats "$scratch/conv.json")"

echo "bench: warming the remote cache with .ci/run..." >&2
rm -rf /var/cache/rocke/remote-cache
.ci/run >/dev/null 2>&1 || true
clone=$scratch/fresh-clone
git clone -q "$checkout" "$clone"
# Only the remote cache may answer: no disk cache for the clone.
echo "build --disk_cache=" >"$clone/user.bazelrc"
echo "bench: CI-style run from a fresh clone in $clone..." >&2
t0=$SECONDS
(cd "$clone" && .ci/run >"$scratch/clone.log" 2>&1) || true
seconds=$((SECONDS - t0))
hits=$(grep -oE '[0-9]+ remote cache hit' "$scratch/clone.log" | tail -n 1)
row "fresh clone, warm remote cache (.ci/run)" "$seconds s, ${hits:-0 remote cache hit}, $(stats /var/cache/rocke/ci/bep.json), last line: $(tail -n 1 "$scratch/clone.log")"

printf '| measurement | figure |\n|---|---|\n'
printf '%s\n' "${rows[@]}"
