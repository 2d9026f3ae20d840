# Sourced by .ci/run: a check whose inputs have not changed since it passed is
# not run again; its passing report is shown instead, as Bazel shows a cached
# test. The key is the check's command line, the pinned root's key and the
# content of every tracked file under the check's input paths (`git ls-files
# -s`, blob hashes), so the same inputs on any checkout or clone hit and any
# change to them misses. Inputs with uncommitted changes are never looked up
# nor stored. Results live in /var/cache/rocke/check-results, shared by
# every checkout on purpose (content-keyed, like the disk cache).
# ROCKE_CHECK_RESULTS and ROCKE_ROOT_KEY replace the folder and the root's key
# (check_cache_test.py).
#
#   check_cache_run "PATH..." COMMAND [ARG...]
#
# prints the report (the cached one after a line saying so), and returns the
# command's exit status (0 for a cache hit). Only a run that passed every
# check ("checks: P passed, 0 failed") is stored, written atomically.

check_cache_dir=${ROCKE_CHECK_RESULTS:-/var/cache/rocke/check-results}

# check_cache_key "PATH..." COMMAND...: the key, or nothing when an input path
# has uncommitted changes (or git cannot list it).
check_cache_key() {
  local paths=$1
  shift
  # shellcheck disable=SC2086 # the paths are words
  [[ -z $(git status --porcelain -- $paths 2>/dev/null) ]] || return 0
  local listing
  # shellcheck disable=SC2086
  listing=$(git ls-files -s -- $paths) || return 0
  printf '%s\n' "$*" "${ROCKE_ROOT_KEY:-$(toolchains/sysroot/root.sh key)}" "$listing" | sha256sum | cut -c1-32
}

check_cache_run() {
  local paths=$1
  shift
  local key name out status
  key=$(check_cache_key "$paths" "$@")
  name=$(basename "$1" .sh)
  if [[ -n $key && -f $check_cache_dir/$name-$key ]]; then
    echo "ci: $name: inputs unchanged since it passed (result $name-$key); its report:"
    cat "$check_cache_dir/$name-$key"
    return 0
  fi
  out=$("$@")
  status=$?
  echo "$out"
  if [[ -n $key && $status -eq 0 ]] && grep -qE '^checks: [0-9]+ passed, 0 failed$' <<<"$out"; then
    mkdir -p "$check_cache_dir" &&
      printf '%s\n' "$out" >"$check_cache_dir/.$name-$key.tmp" &&
      mv "$check_cache_dir/.$name-$key.tmp" "$check_cache_dir/$name-$key"
  fi
  return "$status"
}
