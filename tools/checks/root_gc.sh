#!/usr/bin/env bash
# `root.sh gc` removes exactly the roots nobody needs. Builds fake roots (a
# marker and 1 MiB of files each) in a scratch ROCKE_ROOTS under
# /var/cache/rocke/checks, makes some of them old, recent or in use in each
# way gc must see, runs the real root.sh gc, and fails when:
#   1. a bad ROCKE_ROOTS_KEEP_DAYS is not one clear error, or removes anything;
#   2. gc removes the current root (even unused for a month), a recent one,
#      one a `root.sh exec` holds (its KEY.use lock), one mounted in another
#      mount namespace (bind mount), one that is an overlay's lower layer (the
#      remote executor's), one that is a process's root directory, an
#      unfinished build whose builder runs, or anything that is not a root;
#   3. gc keeps an old unused root (stamped, or unstamped with an old marker),
#      a root moved aside, or an unfinished build nobody runs;
#   4. its last line does not give the bytes the removed folders held;
#   5. ROCKE_ROOTS_KEEP_DAYS=1 does not also remove the root used 2 days ago;
#   6. a gc while another runs removes anything;
#   7. `root.sh exec` of the real root does not hold its KEY.use lock while
#      its command runs, or does not touch its .rocke-used.
# The real roots are only read (7); the check says if their list changed.
#
#   tools/checks/root_gc.sh
#
# Prints "PASS name" or "FAIL name" with details, then "checks: P passed,
# F failed"; exit status: the number of failed checks.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source tools/checks/report.sh
root_sh=$PWD/toolchains/sysroot/root.sh
real_roots=/var/cache/rocke/roots
real_before=$(ls -a "$real_roots" 2>/dev/null)

mkdir -p /var/cache/rocke/checks
scratch=$(mktemp -d /var/cache/rocke/checks/root-gc.XXXXXX) || exit 1
roots=$scratch/roots
pids=()
finish() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  umount "$scratch"/mnt-* 2>/dev/null
  rm -rf "$scratch"
}
trap finish EXIT
gc() { ROCKE_ROOTS=$roots "$root_sh" gc; }

key=$("$root_sh" key)
month_ago=$(date -d '30 days ago' +%Y%m%d%H%M)
# fake NAME [STAMP_AGE]: a root-shaped folder; its marker and stamp (if any) dated.
fake() {
  local dir=$roots/$1
  mkdir -p "$dir/usr/bin" "$dir/opt"
  head -c 1048576 /dev/zero >"$dir/usr/bin/bazel"
  echo "key $1" >"$dir/.rocke-root"
  touch -t "$month_ago" "$dir/.rocke-root"
  [[ -z ${2:-} ]] || touch -d "$2" "$dir/.rocke-used"
}
# Background holders; each prints "ready" when it holds what it holds.
hold() {
  local log=$scratch/hold-${#pids[@]}.log
  "$@" >"$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do grep -qs ready "$log" && return 0; sleep 0.1; done
  fail "the holder $* is ready" "$(cat "$log")"
}

cur=$key old=a0a0a0a0a0a0a0a0 recent=b0b0b0b0b0b0b0b0 legacy=c0c0c0c0c0c0c0c0
locked=d0d0d0d0d0d0d0d0 bound=e0e0e0e0e0e0e0e0 lower=f0f0f0f0f0f0f0f0 chrooted=a1a1a1a1a1a1a1a1
fake "$cur" '30 days ago'
fake "$old" '30 days ago'
fake "$recent" '2 days ago'
fake "$legacy"
fake "$locked" '30 days ago'
fake "$bound" '30 days ago'
fake "$lower" '30 days ago'
fake "$chrooted" '30 days ago'
fake .trash-a2a2a2a2a2a2a2a2-123
fake .tmp-a3a3a3a3a3a3a3a3-456
fake .tmp-a4a4a4a4a4a4a4a4-789
mkdir -p "$roots/.locks" "$roots/.logs" "$roots/not-a-root" "$scratch/mnt-bound" "$scratch/mnt-lower" "$scratch/upper" "$scratch/work"
touch "$roots/README"

# In use, each its own way.
hold flock -s "$roots/.locks/$locked.use" bash -c 'echo ready; exec sleep 120'
hold unshare --mount --propagation private bash -c \
  'mount --bind "$1" "$2" && echo ready && exec sleep 120' _ "$roots/$bound/usr" "$scratch/mnt-bound"
hold unshare --mount --propagation private bash -c \
  'mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" "$4" && echo ready && exec sleep 120' \
  _ "$roots/$lower" "$scratch/upper" "$scratch/work" "$scratch/mnt-lower"
hold python3 -c 'import os, sys, time; os.chroot(sys.argv[1]); print("ready", flush=True); time.sleep(120)' "$roots/$chrooted"
hold flock "$roots/.locks/a3a3a3a3a3a3a3a3.lock" bash -c 'echo ready; exec sleep 120'

listing() { (cd "$roots" && ls -a | sort | paste -sd' '); }

# 1. A bad threshold.
before=$(listing)
out=$(ROCKE_ROOTS_KEEP_DAYS=week gc 2>&1)
status=$?
if [[ $status -ne 0 && $out == *"ROCKE_ROOTS_KEEP_DAYS must be a whole number of days, got 'week'"* && $(listing) == "$before" ]]; then
  pass "gc: ROCKE_ROOTS_KEEP_DAYS=week is one clear error and removes nothing"
else
  fail "gc: ROCKE_ROOTS_KEEP_DAYS=week is one clear error and removes nothing" "exit $status: $out"
fi

# 2-4. The default run.
expected_bytes=$(du -sb "$roots/$old" "$roots/$legacy" "$roots/.trash-a2a2a2a2a2a2a2a2-123" "$roots/.tmp-a4a4a4a4a4a4a4a4-789" | awk '{s += $1} END {print s}')
out=$(gc 2>&1)
status=$?
echo "$out" | sed 's/^/    | /'
gone=() stayed=()
for name in "$cur" "$recent" "$locked" "$bound" "$lower" "$chrooted" .tmp-a3a3a3a3a3a3a3a3-456 not-a-root README .locks .logs; do
  [[ -e $roots/$name ]] || gone+=("$name")
done
for name in "$old" "$legacy" .trash-a2a2a2a2a2a2a2a2-123 .tmp-a4a4a4a4a4a4a4a4-789; do
  [[ ! -e $roots/$name ]] || stayed+=("$name")
done
if [[ $status -eq 0 && ${#gone[@]} -eq 0 ]]; then
  pass "gc: keeps the current root, a recent one, one held by an exec, a bind-mounted one, an overlay's lower layer, a chroot, a running build, and what is no root"
else
  fail "gc: keeps the current root, a recent one, the ones in use, a running build, and what is no root (exit $status)" "removed: ${gone[*]:-none}"
fi
reasons=$(grep -c -e "kept $locked: in use: a root.sh exec" -e "kept $bound: in use: it is mounted" -e "kept $lower: in use: it is mounted" \
  -e "kept $chrooted: in use: it is the root directory" -e "kept .tmp-a3a3a3a3a3a3a3a3-456: in use: its build runs" -e "kept $cur: the current root" <<<"$out")
if [[ $reasons -eq 6 ]]; then pass "gc: says why it keeps each root in use"
else fail "gc: says why it keeps each root in use ($reasons of 6 reasons found)" "$(grep kept <<<"$out")"; fi
if [[ ${#stayed[@]} -eq 0 ]]; then
  pass "gc: removes an old root (stamped or not), a root moved aside and an unfinished build nobody runs"
else
  fail "gc: removes an old root (stamped or not), a root moved aside and an unfinished build nobody runs" "kept: ${stayed[*]}"
fi
if [[ $(tail -n 1 <<<"$out") == "rocke gc: removed 4 folders, freed "*" ($expected_bytes bytes)" ]]; then
  pass "gc: reports the $expected_bytes bytes the 4 removed folders held"
else
  fail "gc: reports the $expected_bytes bytes the 4 removed folders held" "$(tail -n 1 <<<"$out")"
fi

# 5. The threshold.
out=$(ROCKE_ROOTS_KEEP_DAYS=1 gc 2>&1)
if [[ ! -e $roots/$recent && -e $roots/$cur && -e $roots/$locked && $out == *"removed $recent: last used 2 days ago"* ]]; then
  pass "gc: ROCKE_ROOTS_KEEP_DAYS=1 also removes the root used 2 days ago, and nothing in use"
else
  fail "gc: ROCKE_ROOTS_KEEP_DAYS=1 also removes the root used 2 days ago, and nothing in use" "$out"
fi

# 6. Two at once.
fake "$old" '30 days ago'
hold flock "$roots/.locks/gc.lock" bash -c 'echo ready; exec sleep 120'
out=$(gc 2>&1)
if [[ -e $roots/$old && $out == *"another gc is collecting"* ]]; then pass "gc: a gc while another runs leaves everything to it"
else fail "gc: a gc while another runs leaves everything to it" "$out"; fi

# 7. The real root.sh exec: its lock while its command runs, and its stamp.
real=$real_roots/$key
stamp_before=$(stat -c %Y.%y "$real/.rocke-used" 2>/dev/null)
sleep 1
"$root_sh" exec bash -c 'echo ready; exec sleep 5' >"$scratch/exec.log" 2>&1 &
exec_pid=$!
pids+=("$exec_pid")
for _ in $(seq 50); do grep -qs ready "$scratch/exec.log" && break; sleep 0.1; done
if grep -qs ready "$scratch/exec.log" && ! flock -n -x "$real_roots/.locks/$key.use" true; then held=1; else held=0; fi
kill "$exec_pid" 2>/dev/null
wait "$exec_pid" 2>/dev/null
stamp_after=$(stat -c %Y.%y "$real/.rocke-used" 2>/dev/null)
if ((held)) && [[ -n $stamp_after && $stamp_after != "$stamp_before" ]]; then
  pass "root.sh exec holds $key.use while its command runs and stamps the root's last use"
else
  fail "root.sh exec holds $key.use while its command runs and stamps the root's last use" \
    "lock held: $held; .rocke-used: '${stamp_before:-none}' -> '${stamp_after:-none}'" "$(cat "$scratch/exec.log")"
fi
[[ $(ls -a "$real_roots" 2>/dev/null) == "$real_before" ]] || echo "note: the real $real_roots changed meanwhile (another ./bazel built or gc'ed): $(ls -a "$real_roots" | paste -sd' ')"

report
exit "$failed"
