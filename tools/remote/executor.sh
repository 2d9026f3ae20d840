#!/usr/bin/env bash
# A real REAPI executor on this machine: BuildGrid's server (bgd, from PyPI) with
# PostgreSQL, and buildbox-worker running actions with buildbox-run-hosttools,
# all inside the pinned root plus a layer of their own.
#
#   executor.sh key       print the executor environment's key
#   executor.sh env       build the environment if needed, print its layer folder
#   executor.sh up        start the executor (in the background), wait until its
#                         worker is connected, print the client flags
#   executor.sh down      stop it: every process it started, and its mounts
#   executor.sh status    say whether it runs, and where its logs are
#
# Folder: ROCKE_REMOTE_BASE (default /var/cache/rocke/remote; another one builds
# a fresh environment, for measuring). Port: ROCKE_REMOTE_PORT (default 50052,
# the one --config=remote names; the database takes the next one). Worker
# slots: ROCKE_REMOTE_JOBS (default: twice the number of cores; a slot waits
# about 0.8 s for each job's lease and input tree, its core idle, and with one
# slot per core the worker ran no job for 49 of the 174 s of the catalog's
# remote build, tools/checks/remote_execution.sh).
#
# The environment: the pinned root (toolchains/sysroot, read-only) as the lower
# folder of an overlay, under a layer that adds ./packages and a BuildGrid venv
# (./buildgrid.lock). The layer lives in /var/cache/rocke/remote/envs/<key>; its
# key hashes the root's key and this folder's inputs, so the root's own key and
# files never change, and a new root gets a new layer. Like the root, the layer
# is built in a temporary folder under a lock and renamed into place whole.
#
# Actions name absolute paths of the root (/opt/rocke/venv/bin/python3,
# /usr/lib/llvm-23, the autodetected gcc), so a worker must run in the root the
# client's actions were made for: the worker offers the platform property
# rocke-root=<root key>, which Bazel's exec platform //tools/remote:rocke_root
# asks for, and BuildGrid matches them (a job for another root waits).
#
# Each run keeps its state in /var/cache/rocke/remote/run/<port>: pid, the
# BuildGrid config, logs/ (postgres.log, bgd.log, worker.log, serve.log) and
# the run's own writable overlay folder (database, CAS), emptied on every `up`.
# All of it runs in one PID namespace made by the `unshare` whose pid is
# recorded: `down` ends the namespace's first process (serve.sh), and the
# kernel ends the rest; the mounts vanish with the namespace.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
checkout=$(cd "$here/../.." && pwd -P)
base=${ROCKE_REMOTE_BASE:-/var/cache/rocke/remote}
port=${ROCKE_REMOTE_PORT:-50052}
[[ $port =~ ^[1-9][0-9]{0,4}$ && $port -lt 65535 ]] ||
  { echo "rocke remote: ROCKE_REMOTE_PORT must be a TCP port below 65535 (the database takes the next one), got '$port'." >&2 && exit 1; }
db_port=$((port + 1))
jobs=${ROCKE_REMOTE_JOBS:-$((2 * $(nproc)))}
run_dir=$base/run/$port

die() {
  printf 'rocke remote: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '  %s\n' "$line" >&2; done
  exit 1
}

root_key() { "$checkout/toolchains/sysroot/root.sh" key; }

env_key() {
  { root_key && cat "$here/packages" "$here/buildgrid.lock" "$here/build_env.sh"; } | sha256sum | cut -c1-16
}

need_root_privilege() {
  [[ $EUID -eq 0 ]] || die "the executor needs root (overlay and namespace mounts, like ./bazel); running as uid $EUID."
}

# Builds the layer if needed; sets layer (its folder) and root (the pinned root's).
ensure_env() {
  local key tmp log
  root=$("$checkout/toolchains/sysroot/root.sh" path)
  key=$(env_key)
  layer=$base/envs/$key
  [[ -f $layer/.rocke-remote-env ]] && return 0
  need_root_privilege
  mkdir -p "$base/envs/.locks" "$base/envs/.logs"
  exec 8>"$base/envs/.locks/$key.lock"
  if ! flock -n 8; then
    echo "rocke remote: another call is building the executor environment $key; waiting for it..." >&2
    flock 8
  fi
  if [[ ! -f $layer/.rocke-remote-env ]]; then
    rm -rf "$base/envs/.tmp-$key"-*
    tmp=$base/envs/.tmp-$key-$$
    log=$base/envs/.logs/$key.log
    echo "rocke remote: building the executor environment $key on the pinned root $(root_key) (about a minute; log: $log)" >&2
    # Its own PID namespace, tied to this script: a killed build leaves no
    # process (nor, with the mount namespace, any mount) behind.
    if ! setpriv --pdeathsig KILL -- unshare --mount --propagation private --pid --fork --kill-child=KILL -- \
      bash "$here/build_env.sh" "$tmp" "$root" "$log"; then
      rm -rf "$tmp"
      die "building the executor environment failed; nothing of it will be used. Last lines of $log:" \
        "$(tail -n 15 "$log" | sed 's/^/    /')"
    fi
    printf 'key %s\nroot %s\n' "$key" "$(root_key)" >"$tmp/layer/.rocke-remote-env"
    mv "$tmp/layer" "$layer"
    rm -rf "$tmp"
  fi
  exec 8>&-
}

# Whether process PID runs (a child that ended stays a zombie until reaped).
alive() {
  local state
  state=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null) && [[ $state != Z ]]
}

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The pid of this port's running executor (its unshare), if any.
running_pid() {
  local pid
  pid=$(cat "$run_dir/pid" 2>/dev/null) || return 1
  [[ -n $pid && -r /proc/$pid/cmdline ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "unshare .*$run_dir/serve.sh" || return 1
  echo "$pid"
}

client_flags() {
  local flags=(--config=remote)
  [[ $port == 50052 ]] || flags+=("--remote_executor=grpc://127.0.0.1:$port")
  echo "${flags[*]}"
}

up() {
  local pid waited=0
  need_root_privilege
  if pid=$(running_pid); then die "an executor already runs on port $port (pid $pid); stop it first: tools/remote/executor.sh down"; fi
  for p in "$port" "$db_port"; do
    if listening "$p"; then die "something else listens on 127.0.0.1:$p; set ROCKE_REMOTE_PORT to another port (the database takes the next one)."; fi
  done
  [[ $jobs =~ ^[1-9][0-9]*$ ]] || die "ROCKE_REMOTE_JOBS must be a positive number of worker slots, got '$jobs'."
  ensure_env
  rm -rf "$run_dir"
  mkdir -p "$run_dir/logs"
  cp "$here/serve.sh" "$run_dir/serve.sh"
  sed -e "s#@PORT@#$port#g" -e "s#@DB_PORT@#$db_port#g" "$here/bgd.yml.in" >"$run_dir/bgd.yml"
  # setsid: the executor outlives this shell and its terminal.
  setsid unshare --mount --propagation private --pid --fork --kill-child=KILL -- \
    bash "$run_dir/serve.sh" outer "$run_dir" "$layer" "$root" "$(root_key)" "$port" "$db_port" "$jobs" \
    </dev/null >"$run_dir/logs/serve.log" 2>&1 &
  echo $! >"$run_dir/pid"
  # Ready when the worker's bot session is open (it then polls for jobs).
  pid=$!
  until grep -qs 'Bot Session created' "$run_dir/logs/worker.log"; do
    if ! alive "$pid"; then
      die "the executor stopped while starting. Last lines of $run_dir/logs/serve.log:" "$(tail -n 15 "$run_dir/logs/serve.log" | sed 's/^/    /')"
    fi
    ((waited < 120)) || { down >/dev/null; die "the executor did not become ready in 120 s; its logs are in $run_dir/logs"; }
    sleep 1
    waited=$((waited + 1))
  done
  echo "rocke remote: executor up on grpc://127.0.0.1:$port (worker slots: $jobs, root $(root_key), logs: $run_dir/logs)" >&2
  echo "rocke remote: build with: ./bazel build $(client_flags) TARGET..." >&2
}

down() {
  local pid
  if ! pid=$(running_pid); then
    echo "rocke remote: no executor runs on port $port" >&2
    return 0
  fi
  # unshare --fork ignores SIGTERM and passes on no signal: SIGTERM goes to its
  # child, the namespace's first process (serve.sh), whose end ends the
  # namespace. SIGKILL to unshare if that takes over 10 s (its --kill-child
  # then kills the child).
  local child
  child=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null) || true
  [[ -z $child ]] || kill -TERM $child
  for _ in $(seq 100); do [[ -e /proc/$pid ]] || break; sleep 0.1; done
  [[ ! -e /proc/$pid ]] || kill -KILL "$pid"
  for _ in $(seq 50); do [[ -e /proc/$pid ]] || break; sleep 0.1; done
  [[ ! -e /proc/$pid ]] || die "the executor (pid $pid) did not stop."
  rm -f "$run_dir/pid"
  # The run's writable folders (database, CAS); its logs stay for reading.
  rm -rf "$run_dir/upper" "$run_dir/work" "$run_dir/merged"
  echo "rocke remote: executor on port $port stopped (logs kept in $run_dir/logs)" >&2
}

status() {
  local pid
  if pid=$(running_pid); then echo "rocke remote: executor runs on grpc://127.0.0.1:$port (pid $pid; logs: $run_dir/logs)"
  else echo "rocke remote: no executor runs on port $port" && return 1; fi
}

case ${1:-} in
  key) env_key ;;
  env) ensure_env && echo "$layer" ;;
  up) up ;;
  down) down ;;
  status) status ;;
  *) die "unknown subcommand '${1:-}'; expected one of: key, env, up, down, status" ;;
esac
