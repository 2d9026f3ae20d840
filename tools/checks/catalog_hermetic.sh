#!/usr/bin/env bash
# The catalog's actions are hermetic and cached (issue 11 item 2):
#   1. no command line of //app/catalog:resnet50's actions names an absolute path
#      (so they run the same on a remote executor, from any checkout);
#   2. a second build of it runs no action (every kernel is cached).
# That a clone at another path, with nothing cached, builds the same bytes is
# remote_execution.sh's check 4: its remote build runs from such a clone, so
# one from-scratch build proves both.
#
#   tools/checks/catalog_hermetic.sh [BAZEL_FLAG...]
#
# Prints "PASS name" or "FAIL name: ..." per check and "checks: P passed,
# F failed"; exit status: failures.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
target=//app/catalog:resnet50
source tools/checks/report.sh

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

report
exit "$failed"
