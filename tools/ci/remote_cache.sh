# Sourced by .ci/run and tools/checks/broken_remote_cache.sh: the remote cache
# CI runs against. nginx from the pinned root serves a folder over WebDAV, whose
# PUT and GET are Bazel's HTTP cache protocol (template: nginx.conf.in here).
#
#   ci_remote_cache STATE FOLDER
#       The cache of a CI run: $ROCKE_REMOTE_CACHE when set (then nothing is
#       started and nothing is created), else a local nginx on 127.0.0.1:
#       ${ROCKE_CACHE_PORT:-18080} serving FOLDER. Sets remote_cache_url.
#   remote_cache_start PORT FOLDER STATE
#       Starts nginx on 127.0.0.1:PORT serving FOLDER (created if needed), its
#       config and logs in STATE; sets remote_cache_url and remote_cache_pid.
#   remote_cache_stop
#       Stops the nginx remote_cache_start started, if any.
#
# FOLDER and STATE must lie under /var/cache/rocke or the checkout: the only
# host folders the pinned root sees. Each function prints what went wrong and
# fails (status 1) instead of leaving a half-started cache.

remote_cache_pid=
remote_cache_url=

ci_remote_cache() {
  local state=$1 folder=$2
  if [[ -n ${ROCKE_REMOTE_CACHE:-} ]]; then
    remote_cache_url=$ROCKE_REMOTE_CACHE
    return 0
  fi
  remote_cache_start "${ROCKE_CACHE_PORT:-18080}" "$folder" "$state"
}

remote_cache_start() {
  local port=$1 folder=$2 state=$3 here checkout path
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
  checkout=$(cd "$here/../.." && pwd -P)
  for path in "$folder" "$state"; do
    if [[ $path != /var/cache/rocke/* && $path != "$checkout"/* ]]; then
      echo "remote cache: $path is outside /var/cache/rocke and the checkout $checkout; nginx runs in the pinned root, which sees only those." >&2
      return 1
    fi
  done
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "remote cache: something already listens on 127.0.0.1:$port; stop it, or pick another port." >&2
    return 1
  fi
  mkdir -p "$folder" "$state/body-temp"
  sed -e "s#@PORT@#$port#g" -e "s#@STATE@#$state#g" -e "s#@FOLDER@#$folder#g" "$here/nginx.conf.in" >"$state/nginx.conf"
  "$checkout/toolchains/sysroot/root.sh" exec nginx -c "$state/nginx.conf" &
  remote_cache_pid=$!
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.2
  done
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "remote cache: nginx did not start on 127.0.0.1:$port; see $state/nginx-error.log" >&2
    remote_cache_stop
    return 1
  fi
  remote_cache_url=http://127.0.0.1:$port
}

remote_cache_stop() {
  if [[ -n $remote_cache_pid ]]; then
    kill "$remote_cache_pid" 2>/dev/null && wait "$remote_cache_pid" 2>/dev/null
    remote_cache_pid=
  fi
  return 0
}
