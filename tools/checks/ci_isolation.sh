#!/usr/bin/env bash
# Two checkouts can run .ci/run at once on one machine. Tries to make them
# clobber each other, and fails when:
#   1. two checkouts get the same state folder (tools/ci/state.sh), one
#      checkout gets another one on a second call or from another working
#      folder, or it lies outside /var/cache/rocke/ci;
#   2. a script (.ci/run, a check, a benchmark) names a fixed state or
#      scratch path under /var/cache/rocke/ci instead of asking ci_state_dir;
#   3. one checkout's setup (claim, the stale bep.json, the clone and the
#      copy removed) deletes a file of the other's;
#   4. a second run of the same checkout starts instead of stopping at once
#      with the first one's pid, or a dead run's claim blocks the next run;
#   5. two CI caches started at the same moment from one port range do not
#      get a port each, or do not each answer with their own nginx;
#   6. two caches started at the same moment on one single port both report
#      success (the loser's nginx cannot bind; the winner's answers its
#      connection test);
#   7. a blob PUT through one cache is not read whole through the other (the
#      remote-cache folder is shared on purpose), or nginx's upload folder
#      and the cache folder lie on different filesystems (a PUT is then a
#      copy, not a rename, and a reader could see half a blob).
#
#   tools/checks/ci_isolation.sh
#
# No Bazel; nginx from the pinned root on ports of ROCKE_CHECK_ISOLATION_PORT
# (default 18120-18139). Prints "PASS name" or "FAIL name" with details, then
# "checks: P passed, F failed"; exit status: the number of failed checks.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/checks/report.sh
source tools/ci/state.sh
ports=${ROCKE_CHECK_ISOLATION_PORT:-18120-18139}

mkdir -p /var/cache/rocke/checks
scratch=$(mktemp -d /var/cache/rocke/checks/ci-isolation.XXXXXX) || exit 1
pids=()
finish() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$scratch" "${state_a:-}" "${state_b:-}"
}
trap finish EXIT

# 1. Two checkouts: two scratch folders (ci_state_dir needs only the path).
mkdir -p "$scratch/a" "$scratch/b/sub"
state_a=$(ci_state_dir "$scratch/a") state_b=$(ci_state_dir "$scratch/b")
again_a=$(cd "$scratch/a" && ci_state_dir .)
from_sub=$(cd "$scratch/b/sub" && ci_state_dir ..)
if [[ $state_a != "$state_b" && $state_a == "$again_a" && $state_b == "$from_sub" &&
  $state_a == /var/cache/rocke/ci/a-* && $state_b == /var/cache/rocke/ci/b-* ]]; then
  pass "state: two checkouts get two folders under /var/cache/rocke/ci, one checkout always the same ($state_a, $state_b)"
else
  fail "state: two checkouts get two folders under /var/cache/rocke/ci, one checkout always the same" \
    "a: $state_a (again: $again_a)" "b: $state_b (from b/sub: $from_sub)"
fi

# 2. Nobody else spells the folder: no file but the docs names a fixed path
# under /var/cache/rocke/ci (mktemp templates, unique per call, aside).
fixed=$(git grep -n '/var/cache/rocke/ci' -- ':!*.md' ':!tools/ci/state.sh' ':!tools/checks/ci_isolation.sh')
status=$? # 1: no match
fixed=$(grep -v -e 'mktemp' -e 'mkdir -p /var/cache/rocke/ci$' <<<"$fixed")
if ((status > 1)); then fail "state: no script names a fixed path under /var/cache/rocke/ci" "git grep failed (exit $status): is this a git checkout?"
elif [[ -z $fixed ]]; then pass "state: no script names a fixed path under /var/cache/rocke/ci"
else fail "state: no script names a fixed path under /var/cache/rocke/ci; use ci_state_dir (tools/ci/state.sh):" "$fixed"; fi

# 3. A runs; B sets up the way .ci/run and platform_only.sh do; A's files
# must all be there.
claim_and_wait() { exec bash -c 'source tools/ci/state.sh && ci_state_claim "$1" && echo claimed && exec sleep 60' _ "$1"; }
claim_and_wait "$state_a" >"$scratch/a.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -qs claimed "$scratch/a.out" && break; sleep 0.1; done
mkdir -p "$state_a/platform-only"
touch "$state_a/bep.json" "$state_a/test.log" "$state_a/platform-only/MODULE.bazel"
files_a=$(cd "$state_a" && find . | sort)
(ci_state_claim "$state_b" && rm -f "$state_b/bep.json" && rm -rf "$state_b/platform-only" && ci_state_release "$state_b")
if [[ $(cd "$state_a" && find . | sort) == "$files_a" && $(wc -l <<<"$files_a") -ge 5 ]]; then
  pass "state: another checkout's setup leaves every file of a running one ($(wc -l <<<"$files_a") entries)"
else
  fail "state: another checkout's setup leaves every file of a running one" "$(diff <(echo "$files_a") <(cd "$state_a" && find . | sort))"
fi

# 4. The same checkout twice: the second stops and deletes nothing.
second=$(ci_state_claim "$state_a" 2>&1)
status=$?
owner=${pids[0]}
if [[ $status -ne 0 && $second == *"another .ci/run of this checkout (pid $owner)"* && -e $state_a/bep.json ]]; then
  pass "state: a second run of one checkout stops at once, naming the first (pid $owner)"
else
  fail "state: a second run of one checkout stops at once, naming the first (pid $owner)" "exit $status: ${second:-no message}"
fi
kill "$owner" && wait "$owner" 2>/dev/null
if out=$(ci_state_claim "$state_a" 2>&1) && [[ $(cat "$state_a/run.pid") == "$(ci_process_id $$)" ]]; then
  pass "state: the claim of a run that died is taken over by the next run"
else
  fail "state: the claim of a run that died is taken over by the next run" "${out:-run.pid: $(cat "$state_a/run.pid")}"
fi
ci_state_release "$state_a"

# 5. Two CI caches at the same moment, one range, one shared folder.
folder=$scratch/remote-cache
start_cache() { # NAME PORTS: starts a cache in the background; its url and pid in $scratch/NAME.url
  (
    source tools/ci/remote_cache.sh
    remote_cache_start "$2" "$folder" "$scratch/$1" || exit 1
    echo "$remote_cache_url $remote_cache_pid" >"$scratch/$1.url"
    trap remote_cache_stop EXIT
    sleep 60 &
    wait $!
  ) >"$scratch/$1.log" 2>&1 &
  pids+=($!)
}
wait_cache() { # NAME: waits until it reports a url or gives up; prints the url
  for _ in $(seq 100); do
    [[ -s $scratch/$1.url ]] && { cut -d' ' -f1 "$scratch/$1.url"; return; }
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.2
  done
  return 1
}
source tools/ci/remote_cache.sh
start_cache one "$ports"
one_pid=$!
start_cache two "$ports"
two_pid=$!
url_one=$(wait_cache one "$one_pid") url_two=$(wait_cache two "$two_pid")
id_one=$(remote_cache_answer "${url_one##*:}") id_two=$(remote_cache_answer "${url_two##*:}")
if [[ -n $url_one && -n $url_two && $url_one != "$url_two" && -n $id_one && -n $id_two && $id_one != "$id_two" ]]; then
  pass "cache: two caches started at once from $ports get a port and an nginx each ($url_one, $url_two)"
else
  fail "cache: two caches started at once from $ports get a port and an nginx each" \
    "one: ${url_one:-no url} answers '${id_one}'; $(tail -n 2 "$scratch/one.log")" \
    "two: ${url_two:-no url} answers '${id_two}'; $(tail -n 2 "$scratch/two.log")"
fi

# 7. Shared folder: a PUT through one, a GET through the other.
blob=$(head -c 300000 /dev/urandom | base64 -w0)
digest=$(printf '%s' "$blob" | sha256sum | cut -c1-64)
got=
if [[ -n $url_one && -n $url_two ]]; then
  printf '%s' "$blob" >"$scratch/blob"
  put() {
    exec 3<>"/dev/tcp/127.0.0.1/${url_one##*:}" &&
      { printf 'PUT /cas/%s HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: %s\r\n\r\n' "$digest" "$(stat -c %s "$scratch/blob")"; cat "$scratch/blob"; } >&3 &&
      timeout 5 cat <&3 >/dev/null
  }
  (put) 2>/dev/null
  got=$( (exec 3<>"/dev/tcp/127.0.0.1/${url_two##*:}" && printf 'GET /cas/%s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$digest" >&3 && timeout 5 cat <&3) 2>/dev/null |
    sed '1,/^\r$/d' | sha256sum | cut -c1-64)
fi
if [[ $got == "$digest" ]]; then pass "cache: a blob PUT through one cache is read whole through the other (shared folder)"
else fail "cache: a blob PUT through one cache is read whole through the other" "PUT to ${url_one:-?}, GET from ${url_two:-?}: sha256 ${got:-none}, wanted $digest"; fi
devices=$(stat -c %d "$scratch/one/body-temp" "$folder" /var/cache/rocke/ci "$(dirname /var/cache/rocke/remote-cache)" | sort -u | wc -l)
if [[ $devices -eq 1 ]]; then pass "cache: upload temp files and cache folders share one filesystem (a PUT is a rename)"
else fail "cache: upload temp files and cache folders share one filesystem (a PUT is a rename)" "$devices filesystems"; fi
for pid in "$one_pid" "$two_pid"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done

# 6. One port, two caches at the same moment: one runs, the other says so.
port=${url_one##*:}
port=${port:-${ports%%-*}}
rm -f "$scratch"/*.url
start_cache three "$port"
three_pid=$!
start_cache four "$port"
four_pid=$!
url_three=$(wait_cache three "$three_pid") url_four=$(wait_cache four "$four_pid")
won=$(cat "$scratch"/*.url 2>/dev/null | wc -l)
lost=$(grep -l "no free port in $port" "$scratch/three.log" "$scratch/four.log" | wc -l)
if [[ $won -eq 1 && $lost -eq 1 ]]; then
  pass "cache: of two caches started at once on port $port one runs and the other fails, saying the port is taken"
else
  fail "cache: of two caches started at once on port $port one runs and the other fails, saying the port is taken" \
    "three: ${url_three:-no url}; $(tail -n 2 "$scratch/three.log")" "four: ${url_four:-no url}; $(tail -n 2 "$scratch/four.log")"
fi

report
exit "$failed"
