#!/usr/bin/env bash
# The executor's processes, started by executor.sh (which copies this file into
# the run folder) as the first process of a new PID and mount namespace:
#
#   serve.sh outer RUN LAYER ROOT ROOT_KEY PORT DB_PORT JOBS
#       stacks LAYER on ROOT (both read-only) under RUN/upper, makes that the
#       namespace's root (RUN/logs and this file stay visible at their paths),
#       and runs `serve.sh inner` there
#   serve.sh inner RUN ROOT_KEY PORT DB_PORT JOBS
#       PostgreSQL, `bgd server` and buildbox-worker; returns (and so ends the
#       namespace) as soon as the server or the worker stops
set -euo pipefail

outer() {
  local run=$1 layer=$2 root=$3
  shift 3
  local merged=$run/merged
  mkdir -p "$run/upper" "$run/work" "$merged"
  mount -t overlay overlay -o "lowerdir=$layer:$root,upperdir=$run/upper,workdir=$run/work" "$merged"
  mount -t proc proc "$merged/proc"
  mount --rbind /dev "$merged/dev"
  mkdir -p "$merged$run"
  mount --bind "$run" "$merged$run"
  cd "$merged"
  pivot_root . .
  umount -l .
  exec /usr/bin/env -i HOME=/root LC_ALL=C.UTF-8 \
    PATH=/opt/rocke-remote/buildgrid/bin:/usr/bin:/bin:/usr/sbin:/sbin \
    bash "$run/serve.sh" inner "$run" "$@"
}

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

inner() {
  local run=$1 root_key=$2 port=$3 db_port=$4 jobs=$5
  local logs=$run/logs pg=/var/lib/rocke-remote/pg
  local db=postgresql://bgd@127.0.0.1:$db_port/bgd
  # As PID 1 this shell ignores SIGTERM unless it handles it; ending it ends
  # every process of the namespace.
  trap 'echo "serve: stopping" && exit 0' TERM
  echo "serve: PostgreSQL on 127.0.0.1:$db_port"
  mkdir -p "$pg"
  # PostgreSQL runs as its own user, which must own its data and its log.
  touch "$logs/postgres.log"
  chown postgres: "$pg" "$logs/postgres.log"
  # A throwaway database (a new one each run): no fsync needed.
  runuser -u postgres -- /usr/lib/postgresql/18/bin/initdb --no-sync -D "$pg" -U bgd -A trust >"$logs/initdb.log" 2>&1
  runuser -u postgres -- /usr/lib/postgresql/18/bin/pg_ctl -D "$pg" -w -l "$logs/postgres.log" \
    -o "-c listen_addresses=127.0.0.1 -p $db_port -k /tmp" start
  runuser -u postgres -- /usr/lib/postgresql/18/bin/createdb -h 127.0.0.1 -p "$db_port" -U bgd bgd
  bgd migrate apply "$db" >"$logs/migrate.log" 2>&1

  echo "serve: bgd server on 127.0.0.1:$port"
  bgd server start -v "$run/bgd.yml" >"$logs/bgd.log" 2>&1 &
  for _ in $(seq 120); do listening "$port" && break; sleep 0.5; done
  listening "$port" || { echo "serve: bgd server did not listen on $port; see $logs/bgd.log" && exit 1; }

  echo "serve: buildbox-worker with $jobs slots for rocke-root=$root_key"
  buildbox-worker --remote="http://127.0.0.1:$port" --buildbox-run=/usr/bin/buildbox-run-hosttools \
    --runner-arg=--disable-localcas --concurrent-jobs="$jobs" --verbose \
    --platform "rocke-root=$root_key" --platform OSFamily=linux "rocke-worker-$port" >"$logs/worker.log" 2>&1 &
  wait -n
  echo "serve: bgd server or buildbox-worker stopped; see $logs/bgd.log and $logs/worker.log"
  exit 1
}

case ${1:-} in
  outer | inner) "$@" ;;
  *) echo "serve.sh: expected outer or inner, got '${1:-}'" >&2 && exit 2 ;;
esac
