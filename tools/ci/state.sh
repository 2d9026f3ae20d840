# Sourced by .ci/run and the checks in tools/checks: where a checkout keeps
# its CI state (bep.json, test.log, the nginx cache's config and logs) and its
# scratch copies (the catalog clone, the platform-only copy).
#
#   ci_state_dir CHECKOUT
#       Prints /var/cache/rocke/ci/NAME-HASH: NAME is the checkout folder's
#       name (for people), HASH the first 12 hex digits of the sha256 of its
#       absolute path. Two checkouts never share it, so two .ci/run at once
#       on one machine cannot read or delete each other's files; one checkout
#       always gets the same one, so the copies' Bazel output bases (keyed by
#       their path) are reused, not left behind one per run as a fresh
#       mktemp folder would.
#   ci_state_claim STATE
#       Makes STATE and records this shell as its run (STATE/run.pid); fails,
#       saying which process has it, when another live run of the same
#       checkout holds it. Two runs of one checkout would share its Bazel
#       server and its state. A run that died leaves a pid that no longer
#       runs, and the next claim takes it over.
#   ci_state_release STATE
#       Drops the claim, if this shell holds it.
#
# The pinned root sees only /var/cache/rocke and the checkout, hence the
# folder. Shared on purpose, not here: the disk cache, the remote cache's
# folder, the pinned roots.

ci_state_dir() {
  local checkout
  checkout=$(cd "$1" && pwd -P) || return 1
  printf '/var/cache/rocke/ci/%s-%s\n' "$(basename "$checkout")" "$(printf '%s' "$checkout" | sha256sum | cut -c1-12)"
}

# "PID START" of process PID (the start time tells it from a later process
# that reuses the number); nothing if it does not run.
ci_process_id() {
  local start
  start=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20) && [[ -n $start ]] && echo "$1 $start"
}

ci_state_claim() {
  local state=$1 owner
  mkdir -p "$state" || return 1
  # The lock covers only the read and write of run.pid (a lock held for the
  # whole run would be inherited by every process the run starts).
  owner=$(
    exec 9>"$state/run.lock"
    flock 9
    read -r pid start 2>/dev/null <"$state/run.pid"
    if [[ -n ${pid:-} && $(ci_process_id "$pid") == "$pid $start" ]]; then
      echo "$pid"
    else
      ci_process_id "$$" >"$state/run.pid"
    fi
  )
  if [[ -n $owner ]]; then
    echo "ci: another .ci/run of this checkout (pid $owner) is running with the state folder $state; wait for it to end, or stop it." >&2
    return 1
  fi
}

ci_state_release() {
  local state=$1
  [[ $(cat "$state/run.pid" 2>/dev/null) == "$(ci_process_id "$$")" ]] && rm -f "$state/run.pid"
  return 0
}
