#!/usr/bin/env bash
# The catalog's actions run under remote execution (issue 11 item 4): starts the
# real REAPI executor of tools/remote/executor.sh (BuildGrid, PostgreSQL and
# buildbox-worker in the pinned root plus their own layer) on a private port,
# then checks that
#   1. building its environment left the pinned root's key and files as they were,
#      and its layer replaces or hides no file of the root's system folders;
#   2. //app/catalog:resnet50 built with --config=remote and --noremote_accept_cached
#      (a clone's fresh output base, so no action is answered by a cache) runs every
#      kernel action, the archive and the tools they need remotely: Bazel's
#      process summary counts at least kernels + 1 as "remote", none local;
#   3. the worker ran them: its log has as many runner exits with code 0, and none
#      other;
#   4. the remote tar and index.json are the bytes this checkout's local build
#      gives, though the remote build ran from a clone of HEAD at another path:
#      so the catalog depends neither on the checkout's path nor on any cache
#      (commit first: a working tree that changes a kernel fails on purpose);
#   5. a job asking for another root's key is not run (the rocke-root property
#      routes jobs; the worker offers only its own root's).
#
#   tools/checks/remote_execution.sh [BAZEL_FLAG...]
#
# Port: the first free one of ROCKE_CHECK_REMOTE_PORT (a port, or LOW-HIGH
# taken two by two: the database takes the next one; default 18052-18099), so
# that CI runs of several checkouts can run this check at once. A lock per
# port, held by this script and the executor it starts, keeps two of them off
# one port, and only the executor this script started is stopped.
# ROCKE_REMOTE_BASE (executor.sh) set to a new folder measures a cold start.
# Prints "PASS name" or "FAIL name: ..." per check, the time of each phase, and
# "checks: P passed, F failed"; exit status: the number of failed checks.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
target=//app/catalog:resnet50
outputs=(app/catalog/resnet50.tar app/catalog/resnet50.index.json)
source tools/checks/report.sh
# timed WHAT LOG CMD...: runs CMD, its output into LOG, and says how long it took.
timed() {
  local what=$1 log=$2 start=$SECONDS
  shift 2
  "$@" >"$log" 2>&1
  local status=$?
  echo "time: $what $((SECONDS - start)) s"
  return "$status"
}

mkdir -p /var/cache/rocke/checks
scratch=$(mktemp -d /var/cache/rocke/checks/remote-execution.XXXXXX)
started=0
# clone_bazel ARG...: Bazel in the clone, on the scratch output base.
clone=$scratch/clone
clone_bazel() { (cd "$clone" && exec ./bazel "--output_base=$scratch/output-base" "$@"); }
finish() {
  [[ -x $clone/bazel ]] && clone_bazel shutdown >/dev/null 2>&1
  ((started)) && tools/remote/executor.sh down >/dev/null 2>&1
  rm -rf "$scratch"
}
trap finish EXIT

# The port: a lock of ours and both ports free (fd 7 stays open, so the lock
# lasts as long as this script and the executor, which inherits it).
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ports=${ROCKE_CHECK_REMOTE_PORT:-18052-18099}
[[ $ports =~ ^([0-9]+)(-([0-9]+))?$ ]] ||
  { fail "remote: ROCKE_CHECK_REMOTE_PORT is a port or LOW-HIGH, not '$ports'" "e.g. 18052 or 18052-18099" && report && exit "$failed"; }
low=${BASH_REMATCH[1]} high=${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}
ROCKE_REMOTE_PORT=
for ((port = low; port <= high; port += 2)); do
  exec 7>"/var/cache/rocke/checks/.remote-execution-$port.lock"
  if flock -n 7 && ! listening "$port" && ! listening $((port + 1)); then ROCKE_REMOTE_PORT=$port && break; fi
  exec 7>&-
done
[[ -n $ROCKE_REMOTE_PORT ]] || { fail "remote: a free port pair in $ports" "each is locked by another run of this check or taken" && report && exit "$failed"; }
export ROCKE_REMOTE_PORT
run_dir=${ROCKE_REMOTE_BASE:-/var/cache/rocke/remote}/run/$ROCKE_REMOTE_PORT

# 1. The executor's environment is a layer over the root, never the root itself.
root_key=$(toolchains/sysroot/root.sh key)
root=$(toolchains/sysroot/root.sh path)
if timed "executor environment (built if new)" "$scratch/env.log" tools/remote/executor.sh env &&
  [[ $(toolchains/sysroot/root.sh key) == "$root_key" ]] &&
  problem=$(toolchains/sysroot/root.sh check "$root" 2>&1); then
  pass "remote: the executor environment $(tools/remote/executor.sh key) leaves the pinned root $root_key whole and its key unchanged"
else
  fail "remote: the executor environment leaves the pinned root whole and its key unchanged" "$(tail -n 5 "$scratch/env.log")" "${problem:-}"
fi

# The layer may add files, never replace or hide one the actions run (their
# tools, interpreters and libraries): a worker then runs the root's own.
layer=$(tools/remote/executor.sh env 2>/dev/null)
shadowed=$(cd "$layer" 2>/dev/null && find usr opt bin sbin lib lib64 \( -type f -o -type l -o -type c \) 2>/dev/null |
  while read -r f; do [[ -e $root/$f || -L $root/$f ]] && echo "$f"; done | head -n 5)
if [[ -d $layer && -z $shadowed ]]; then pass "remote: the executor's layer replaces or hides no file of the root's usr, opt, bin, sbin, lib"
else fail "remote: the executor's layer replaces or hides no file of the root's usr, opt, bin, sbin, lib" "${shadowed:-no layer at '$layer'}"; fi

started=1
if ! timed "executor up" "$scratch/up.log" tools/remote/executor.sh up; then
  fail "remote: the executor starts on port $ROCKE_REMOTE_PORT" "$(tail -n 10 "$scratch/up.log")"
  report
  exit "$failed"
fi

# 2. Every action remote, none answered by a cache, from a clone at another path.
git clone --quiet --no-hardlinks . "$clone"
timed "remote build of $target" "$scratch/remote.log" clone_bazel build --config=remote \
  "--remote_executor=grpc://127.0.0.1:$ROCKE_REMOTE_PORT" --noremote_accept_cached "$@" "$target"
status=$?
kernels=$(./bazel query "kind('_kernel rule', deps($target))" 2>/dev/null | grep -c .)
summary=$(grep -E '^INFO: [0-9]+ process' "$scratch/remote.log")
remote=$(grep -oE '[0-9]+ remote' <<<"$summary" | cut -d' ' -f1)
others=$(sed -E 's/^INFO: [0-9]+ process(es)?: //; s/[0-9]+ (internal|remote)[,.]? ?//g' <<<"$summary")
# The kernel actions, the archive and the tools they need (the C++ engine
# built for the exec platform): each one remote, none local.
if [[ $status -eq 0 && $kernels -gt 0 && ${remote:-0} -ge $((kernels + 1)) && -z $others ]]; then
  pass "remote: all $kernels kernel actions, the archive of $target and their tools ran remotely (${summary#INFO: })"
else
  fail "remote: all $kernels kernel actions and the archive of $target run remotely (bazel exit $status)" \
    "${summary:-no process line}" "$(grep -E '^ERROR' "$scratch/remote.log" | head -n 5)"
fi

# 3. The worker's own account of them.
ok=$(grep -c 'Runner exited with code 0$' "$run_dir/logs/worker.log")
bad=$(grep -E 'Runner exited with code [1-9]' "$run_dir/logs/worker.log" | head -n 3)
if [[ $ok -eq ${remote:-0} && $ok -gt 0 && -z $bad ]]; then
  pass "remote: buildbox-worker ran $ok actions, each exiting 0 ($run_dir/logs/worker.log)"
else
  fail "remote: buildbox-worker ran the ${remote:-0} remote actions, each exiting 0 (its log: $ok exits with code 0)" "$bad"
fi

# 5. Routing: a job for another root (//tools/remote:unmatched_root) waits,
# unrun, however long: Bazel shows it queued at the executor ("[Sched]"), and
# once it has shown it queued for 10 s (a job of the right root runs in under
# 2 s), Ctrl-C (SIGINT, through timeout, to the whole ./bazel process group)
# cancels the build; timeout's own 60 s bound ends a build that never shows it.
queued="^\[.*\] \[Sched\] .*; [1-9][0-9]s"
before=$(grep -c 'Runner exited' "$run_dir/logs/worker.log")
start=$SECONDS
(cd "$clone" && exec timeout -s INT 60 ./bazel "--output_base=$scratch/output-base" build "--remote_executor=grpc://127.0.0.1:$ROCKE_REMOTE_PORT" \
  --spawn_strategy=remote --disk_cache= --noremote_accept_cached --extra_execution_platforms=//tools/remote:unmatched_root \
  --curses=no --show_progress_rate_limit=5 \
  "${target}_000_gfx942") >"$scratch/unmatched.log" 2>&1 &
build=$!
while kill -0 "$build" 2>/dev/null && ! grep -qs "$queued" "$scratch/unmatched.log"; do sleep 1; done
kill -INT "$build" 2>/dev/null
wait "$build"
status=$?
waited=$((SECONDS - start))
after=$(grep -c 'Runner exited' "$run_dir/logs/worker.log")
if [[ $status -ne 0 && $after -eq $before ]] && grep -q "$queued" "$scratch/unmatched.log"; then
  pass "remote: a job asking for another root (rocke-root=no-such-root) is not run by this root's worker (cancelled after $waited s, queued for 10 s or more; bazel exit $status)"
else
  fail "remote: a job asking for another root is not run by this root's worker (bazel exit $status; runner exits $before -> $after)" "$(tail -n 3 "$scratch/unmatched.log")"
fi

# 4. Remote bytes, built from the clone = this checkout's local bytes.
timed "local build of $target" "$scratch/local.log" ./bazel build "$@" "$target"
local_bin=$(./bazel info bazel-bin "$@" 2>/dev/null)
remote_bin=$(clone_bazel info bazel-bin --config=remote "$@" 2>/dev/null)
differ=()
for f in "${outputs[@]}"; do cmp -s "$local_bin/$f" "$remote_bin/$f" || differ+=("$f"); done
if [[ ${#differ[@]} -eq 0 ]]; then pass "remote: the remote build's ${outputs[*]}, from a clone at another path, are this checkout's local bytes"
else fail "remote: the remote build's outputs, from a clone at another path, are this checkout's local bytes (commit first)" "differ: ${differ[*]}"; fi

report
exit "$failed"
