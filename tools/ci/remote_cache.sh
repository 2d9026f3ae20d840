# Sourced by .ci/run and tools/checks/broken_remote_cache.sh: the remote cache
# CI runs against. nginx from the pinned root serves a folder over WebDAV, whose
# PUT and GET are Bazel's HTTP cache protocol (template: nginx.conf.in here).
#
#   ci_remote_cache STATE FOLDER
#       The cache of a CI run: $ROCKE_REMOTE_CACHE when set (then nothing is
#       started and nothing is created), else a local nginx on 127.0.0.1 at
#       the first free port of ${ROCKE_CACHE_PORT:-18080-18099} serving
#       FOLDER. Sets remote_cache_url.
#   remote_cache_start PORTS FOLDER STATE
#       Starts nginx on 127.0.0.1 at the first free port of PORTS (one port,
#       or LOW-HIGH) serving FOLDER (created if needed), its config and logs
#       in STATE; sets remote_cache_url and remote_cache_pid.
#   remote_cache_stop
#       Stops the nginx remote_cache_start started, if any.
#
# Several checkouts may run CI at once: each nginx answers GET
# /.rocke-cache-id with a token of its own, and a port counts as ours only
# when our token comes back (a port that looked free can be taken by another
# run's nginx before ours binds it; ours then fails to bind, and the other
# one answers the connection test). FOLDER may be shared (nginx.conf.in says
# why that is safe); STATE may not.
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
  remote_cache_start "${ROCKE_CACHE_PORT:-18080-18099}" "$folder" "$state"
}

# The body of GET /.rocke-cache-id on 127.0.0.1:PORT (nothing if no HTTP server answers).
remote_cache_answer() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'GET /.rocke-cache-id HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
    timeout 2 cat <&3
  ) 2>/dev/null | tr -d '\r' | sed '1,/^$/d'
}

remote_cache_start() {
  local ports=$1 folder=$2 state=$3 here checkout path low high port token
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
  checkout=$(cd "$here/../.." && pwd -P)
  if [[ $ports =~ ^([0-9]+)(-([0-9]+))?$ ]]; then
    low=${BASH_REMATCH[1]} high=${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}
  fi
  if [[ -z $low ]] || ((low < 1 || high > 65535 || low > high)); then
    echo "remote cache: ports '$ports' are not a port or a range LOW-HIGH within 1-65535 (e.g. 18080 or 18080-18099)." >&2
    return 1
  fi
  for path in "$folder" "$state"; do
    if [[ $path != /var/cache/rocke/* && $path != "$checkout"/* ]]; then
      echo "remote cache: $path is outside /var/cache/rocke and the checkout $checkout; nginx runs in the pinned root, which sees only those." >&2
      return 1
    fi
  done
  mkdir -p "$folder" "$state/body-temp"
  token=$(cat /proc/sys/kernel/random/uuid)
  for ((port = low; port <= high; port++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
    sed -e "s#@PORT@#$port#g" -e "s#@STATE@#$state#g" -e "s#@FOLDER@#$folder#g" -e "s#@TOKEN@#$token#g" \
      "$here/nginx.conf.in" >"$state/nginx.conf"
    : >"$state/nginx-error.log"
    "$checkout/toolchains/sysroot/root.sh" exec nginx -c "$state/nginx.conf" &
    remote_cache_pid=$!
    local answer=
    for _ in $(seq 50); do
      answer=$(remote_cache_answer "$port")
      [[ -z $answer ]] && kill -0 "$remote_cache_pid" 2>/dev/null || break
      sleep 0.2
    done
    if [[ $answer == "$token" ]]; then
      remote_cache_url=http://127.0.0.1:$port
      return 0
    fi
    remote_cache_stop
    # Another server took the port meanwhile: try the next one.
    [[ -n $answer ]] || grep -q 'Address already in use' "$state/nginx-error.log" && continue
    echo "remote cache: nginx did not start on 127.0.0.1:$port; see $state/nginx-error.log" >&2
    return 1
  done
  echo "remote cache: no free port in $ports on 127.0.0.1 (each one is taken); set ROCKE_CACHE_PORT to another range." >&2
  return 1
}

remote_cache_stop() {
  if [[ -n $remote_cache_pid ]]; then
    kill "$remote_cache_pid" 2>/dev/null && wait "$remote_cache_pid" 2>/dev/null
    remote_cache_pid=
  fi
  return 0
}
