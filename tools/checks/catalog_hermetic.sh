#!/usr/bin/env bash
# The catalog's actions are hermetic and cached (issue 11 item 2):
#   1. no command line of //app/catalog:resnet50's actions names an absolute path
#      (so they run the same on a remote executor, from any checkout);
#   2. a second build of it runs no action (every kernel is cached);
#   3. a second checkout at another path (a clone of HEAD), built with no
#      shared cache, gives the same bytes: the tar and its index.json.
#
#   tools/checks/catalog_hermetic.sh [BAZEL_FLAG...]
#
# The clone lives at a fixed path of this checkout's own (tools/ci/state.sh:
# later runs reuse its Bazel output base, other checkouts never touch it); its
# Bazel server is shut down at the end. Prints "PASS name" or
# "FAIL name: ..." per check and "checks: P passed, F failed"; exit status:
# failures. Check 3 compares HEAD's catalog with this checkout's: commit
# first, or it fails on purpose when the working tree changes a kernel.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
target=//app/catalog:resnet50
outputs=(app/catalog/resnet50.tar app/catalog/resnet50.index.json)
source tools/checks/report.sh
source tools/ci/state.sh

# 1. Command lines: every argument of every RockeKernel/RockeCatalog action.
if args=$(./bazel aquery "mnemonic('RockeKernel|RockeCatalog', deps($target))" --output=jsonproto "$@" 2>/dev/null |
  python3 -c 'import json, sys; doc = json.load(sys.stdin); [print(a) for x in doc.get("actions", []) for a in x["arguments"]]'); then
  count=$(grep -c -- '--arch' <<<"$args")
  absolute=$(grep -E '^/|=/' <<<"$args" | sort -u | head -n 5)
  if [[ $count -gt 0 && -z $absolute ]]; then pass "catalog: no absolute path in the command lines of $count kernel actions and the archive's"
  else fail "catalog: no absolute path in the actions' command lines (found $count kernel actions)" "${absolute:-(no actions found: the query is wrong)}"; fi
else
  fail "catalog: aquery of $target runs"
fi

# 2. Built once (whatever the caches hold), a second build runs nothing.
./bazel build "$target" "$@" >/dev/null 2>&1
second=$(./bazel build "$target" "$@" 2>&1)
processes=$(grep -E '^INFO: [0-9]+ process' <<<"$second")
if [[ $processes =~ ^INFO:\ [0-9]+\ process(es)?:\ [0-9]+\ internal\.$ ]]; then pass "catalog: a second build of $target is fully cached ($processes)"
else fail "catalog: a second build of $target is fully cached" "${processes:-no process line: $(tail -n 3 <<<"$second")}"; fi

# 3. Another checkout, another path, no shared cache: the same bytes.
bin=$(./bazel info bazel-bin "$@" 2>/dev/null)
clone=$(ci_state_dir .)/catalog-clone
mkdir -p "${clone%/*}"
rm -rf "$clone" && git clone --quiet --no-hardlinks . "$clone"
# clean: the clone's output base outlives the clone (it is keyed by the path),
# and its action cache would answer instead of running the actions.
out=$(cd "$clone" && ./bazel clean >/dev/null 2>&1 && ./bazel build --disk_cache= "$target" "$@" 2>&1)
status=$?
clone_bin=$(cd "$clone" && ./bazel info bazel-bin "$@" 2>/dev/null)
(cd "$clone" && ./bazel shutdown >/dev/null 2>&1)
differ=()
for f in "${outputs[@]}"; do cmp -s "$bin/$f" "$clone_bin/$f" || differ+=("$f")
done
ran=$(grep -E '^INFO: [0-9]+ process' <<<"$out")
if [[ $status -eq 0 && ${#differ[@]} -eq 0 && $ran == *linux-sandbox* ]]; then pass "catalog: a clone at $clone builds the same bytes (${outputs[*]}; ${ran#INFO: })"
else fail "catalog: a clone at $clone builds the same bytes, its actions run (bazel exit $status; ${ran:-no process line})" "${differ[@]:-}" "$(grep -E '^ERROR' <<<"$out" | head -n 5)"; fi

report
exit "$failed"
