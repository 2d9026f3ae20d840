#!/usr/bin/env bash
# The pinned root: build it once per machine, then run commands inside it.
#
#   root.sh key                 print the root's key (hash of what it is built from)
#   root.sh path                build the root if needed, print its path
#   root.sh verify              check every file of the root against its sha256;
#                               a corrupted root is moved aside and rebuilt
#   root.sh check [--full] DIR  exit 0 if DIR is a whole root for the current key
#                               (--full: every file's sha256 too); else say why
#   root.sh exec CMD ARG...     build the root if needed, run CMD inside it with the
#                               checkout mounted at the same absolute path
#   root.sh gc                  remove the roots of other keys unused for
#                               ROCKE_ROOTS_KEEP_DAYS days (default 7) that no
#                               process uses (gc.sh says how it tells)
#
# Roots live in /var/cache/rocke/roots/<key>. A root is built into a temporary
# folder and renamed into place only when complete, under an exclusive lock, so
# concurrent callers wait for one build and a killed build is never trusted.
# The build runs in its own PID namespace tied to this script: if root.sh dies,
# however it dies, every process of its build dies too and the lock is free.
# Every mount happens inside a private mount namespace (unshare --mount): when
# the last process in it ends, the mounts are gone, and the host never sees one.
#
# Wholeness: the marker .rocke-root (build_root.sh) holds the key and the sizes
# of a few vital files; .rocke-files holds type, size, modification time and
# link target of every file under the system folders, and .rocke-sha256 their
# sha256 (both written by root.sh when the build finishes). Every call compares
# the marker and .rocke-files (about 0.1-0.2 s); `verify` and .ci/run compare
# the sha256 too. A root without manifests is not trusted: it is rebuilt.
#
# Use: path, verify and exec touch the root's .rocke-used (when it was last
# handed out), and exec holds the key's lock .locks/KEY.use shared while its
# command runs; gc reads both.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
checkout=$(cd "$here/../.." && pwd -P)
# Bazel's output trees and caches; mounted at the same path inside the root.
cache=/var/cache/rocke
# Where roots are built (a different folder gives a fresh build, for benchmarks).
roots=${ROCKE_ROOTS:-$cache/roots}
# Every input the root is made from; the key is their hash.
key_inputs=(
  "$here/manifest"
  "$here/build_root.sh"
  "$checkout/toolchains/python/requirements.lock"
  "$checkout/toolchains/llvm/llvmlite.lock"
)
# Files whose presence and size prove a root is whole (checked on every call).
# Real files only: a symlink in the root may point at a host path from outside.
vital=(
  usr/bin/bazel
  usr/share/bazel/A-server.jar
  usr/bin/python3.14
  opt/rocke/venv/pyvenv.cfg
  opt/rocke/venv/lib/python3.14/site-packages/numpy/_core/_multiarray_umath.cpython-314-x86_64-linux-gnu.so
  opt/rocke/llvm20/lib/python3.14/site-packages/llvmlite/binding/libllvmlite.so
  usr/lib/llvm-22/bin/llc usr/lib/llvm-22/bin/lld usr/lib/llvm-22/lib/liblldELF.a
  usr/lib/llvm-23/bin/llc usr/lib/llvm-23/bin/lld usr/lib/llvm-23/lib/liblldELF.a
  usr/lib/llvm-24/bin/llc usr/lib/llvm-24/bin/lld usr/lib/llvm-24/lib/liblldELF.a
  usr/sbin/nginx
  etc/bazel.bazelrc
)

die() {
  printf 'rocke: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '  %s\n' "$line" >&2; done
  exit 1
}

root_key() {
  cat "${key_inputs[@]}" | sha256sum | cut -c1-16
}

check_privilege() {
  [[ $EUID -eq 0 ]] || die "building and entering the pinned root needs root (for mount namespaces and pivot_root); running as uid $EUID." \
    "Run ./bazel as root, or in a container started with CAP_SYS_ADMIN."
  local err
  err=$(unshare --mount --propagation private true 2>&1) || die "cannot create a private mount namespace: $err" \
    "The pinned root is entered with 'unshare --mount' and pivot_root, which need CAP_SYS_ADMIN." \
    "Run in a container with --privileged or --cap-add SYS_ADMIN."
  err=$(unshare --user true 2>&1) || die "cannot create a user namespace: $err" \
    "Bazel's linux-sandbox, which every action runs in (.bazelrc), needs one." \
    "Allow user namespaces (sysctl user.max_user_namespaces > 0; in a container: --privileged, or a seccomp profile that allows them)."
}

# What DIR's marker must hold: the key, and each vital file with its size.
marker_of() {
  (cd "$1" && printf 'key %s\n' "$key" && stat -c '%n %s' "${vital[@]}" 2>/dev/null)
}

# The folders a manifest covers: all that commands run from. /var, /tmp, /root
# and /run change at run time; __pycache__ folders are Python's own cache.
covered=(usr opt etc bin lib lib64 sbin)

# Runs find in DIR over the covered folders it has, without Python's caches:
# find_covered DIR EXPR... (No process substitution in this file: the test
# sandbox has no /proc, so no /dev/fd.)
find_covered() {
  local dir=$1 parts=() part
  shift
  for part in "${covered[@]}"; do
    if [[ -e $dir/$part || -L $dir/$part ]]; then parts+=("$part"); fi
  done
  # find would list "." if given no folder.
  [[ ${#parts[@]} -gt 0 ]] || return 0
  (cd "$dir" && find "${parts[@]}" -name __pycache__ -prune -o "$@")
}

# One sorted line per file in DIR: type, size, modification time, path, link target.
file_list() {
  find_covered "$1" ! -type d -printf '%y %s %T@ %p -> %l\n' | LC_ALL=C sort
}

# One sorted line per file in DIR: sha256 (or "link:TARGET") and path. Two
# hashers run side by side on alternate files, each into its own file (their
# lines would interleave in one pipe); openssl is about 4x faster than sha256sum
# here, and either gives the same digests.
sha_list() {
  local dir=$1 work hasher=(sha256sum) part pids=() pid
  command -v openssl >/dev/null && hasher=(openssl dgst -sha256 -r)
  work=$(mktemp -d)
  find_covered "$dir" -type f -print0 >"$work/files"
  split -t '\0' -n r/2 "$work/files" "$work/part."
  for part in "$work"/part.??; do
    (cd "$dir" && xargs -0 -r -n 500 "${hasher[@]}" <"$part" >"$part.sha") &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || { rm -rf "$work" && return 1; }; done
  {
    sed 's/^\([0-9a-f]\{64\}\) [ *]/\1 /' "$work"/part.*.sha
    find_covered "$dir" -type l -printf 'link:%l %p\n'
  } | LC_ALL=C sort
  rm -rf "$work"
}

# Writes DIR's manifests (atomically: a reader sees the old or the new one).
write_manifests() {
  local dir=$1
  file_list "$dir" >"$dir/.rocke-files.tmp" && mv "$dir/.rocke-files.tmp" "$dir/.rocke-files"
  sha_list "$dir" >"$dir/.rocke-sha256.tmp" && mv "$dir/.rocke-sha256.tmp" "$dir/.rocke-sha256"
}

# Lines of MANIFEST that the listing LIST_FUNCTION DIR prints lacks: files
# missing or changed. Files added since are not damage and are ignored.
missing_lines() {
  "$2" "$3" | LC_ALL=C comm -23 "$1" -
}

# Prints why DIR is not a whole root (nothing if it is whole) and fails if so.
# LEVEL fast: the marker and .rocke-files; full: .rocke-sha256 as well;
# content: the marker and .rocke-sha256 only (times may have changed).
root_problem() {
  local dir=$1 level=$2 changed
  [[ -f $dir/.rocke-root ]] || { echo "it has no marker (.rocke-root): its build never finished"; return 1; }
  [[ $(cat "$dir/.rocke-root") == "$(marker_of "$dir")" ]] ||
    { echo "its marker names another key, or a vital file is missing or changed size"; return 1; }
  [[ -f $dir/.rocke-files && -f $dir/.rocke-sha256 ]] || { echo "it has no file manifest (.rocke-files, .rocke-sha256)"; return 1; }
  if [[ $level != content ]]; then
    changed=$(missing_lines "$dir/.rocke-files" file_list "$dir")
    [[ -z $changed ]] || { describe "$changed" 4 "missing or changed (size, time or link)"; return 1; }
  fi
  [[ $level != fast ]] || return 0
  changed=$(missing_lines "$dir/.rocke-sha256" sha_list "$dir")
  [[ -z $changed ]] || { describe "$changed" 2 "missing or changed content (sha256)"; return 1; }
}

# "WHAT: N file(s), e.g. PATH, PATH, PATH" from manifest LINES whose FIELD is the path.
describe() {
  local lines=$1 field=$2 what=$3 count
  count=$(wc -l <<<"$lines")
  echo "$what: $count file$( ((count > 1)) && echo s), e.g. $(cut -d' ' -f"$field" <<<"$lines" | head -n 3 | paste -sd, - | sed 's/,/, /g')"
}

# The root is handed out now: gc keeps roots used lately.
stamp_use() {
  touch "$root/.rocke-used"
}

root_is_whole() {
  root_problem "$1" "${2:-fast}" >/dev/null
}

# Builds the root if needed; LEVEL (fast or full) is how closely an existing
# root is checked. Sets key and root.
ensure_root() {
  local level=${1:-fast}
  key=$(root_key)
  root=$roots/$key
  if [[ $level == fast ]] && root_is_whole "$root"; then return; fi
  mkdir -p "$roots/.locks" "$roots/.logs"
  exec 9>"$roots/.locks/$key.lock"
  if ! flock -n 9; then
    echo "rocke: another ./bazel is building the pinned root $key; waiting for it..." >&2
    flock 9
  fi
  if [[ -e $root ]] && keep_root "$level"; then exec 9>&-; return; fi
  check_privilege
  rm -rf "$roots"/.tmp-"$key"-* "$roots"/.trash-*
  local free_kb
  free_kb=$(df -Pk "$roots" | awk 'NR==2 {print $4}')
  ((free_kb >= 6 * 1024 * 1024)) || die "not enough disk space to build the pinned root: $((free_kb / 1024)) MiB free under $roots, 6144 MiB needed." \
    "Free space there, or point ROCKE_ROOTS at a larger disk."
  local tmp=$roots/.tmp-$key-$$
  local log=$roots/.logs/$key.log
  echo "rocke: building the pinned root $key (about 2 minutes; log: $log)" >&2
  local start=$SECONDS
  # The build cannot outlive this script: unshare gets SIGKILL when this shell
  # dies (setpriv --pdeathsig), its child is PID 1 of a new PID namespace and
  # gets SIGKILL when unshare dies (--kill-child), and when PID 1 dies the
  # kernel kills every process in that namespace; the lock (fd 9, inherited by
  # all of them) is free once the last one is gone. Its own mount namespace
  # makes the /proc and /dev mounts die with it too.
  if ! setpriv --pdeathsig KILL -- unshare --mount --propagation private --pid --fork --kill-child=KILL -- \
    bash "$here/build_root.sh" "$tmp" "$key" "$log" "$checkout" "${vital[@]}"; then
    rm -rf "$tmp" 2>/dev/null || true
    die "building the pinned root failed and its partial root will not be used. Last lines of $log:" \
      "$(tail -n 25 "$log" | sed 's/^/    /')"
  fi
  echo "rocke: recording the size, time and sha256 of every file of the root" >&2
  write_manifests "$tmp" || die "recording the files of the new root failed; its build at $tmp will not be used (the next call rebuilds it)."
  mv "$tmp" "$root"
  exec 9>&-
  echo "rocke: pinned root $key ready in $((SECONDS - start)) s" >&2
}

# Under the lock, for an existing root that failed the lock-free check: keeps
# it if it is whole after all (another caller fixed it), or if only
# modification times changed (the sha256 of every file still matches); else
# moves it aside and fails, so that it is rebuilt.
keep_root() {
  local level=$1 problem
  problem=$(root_problem "$root" "$level") && return 0
  if [[ -f $root/.rocke-root && $(cat "$root/.rocke-root") == "$(marker_of "$root")" ]]; then
    if [[ -f $root/.rocke-files && -f $root/.rocke-sha256 ]] && root_is_whole "$root" content; then
      echo "rocke: the pinned root $key: $problem, but every sha256 still matches; recording the new times." >&2
      file_list "$root" >"$root/.rocke-files.tmp" && mv "$root/.rocke-files.tmp" "$root/.rocke-files"
      return 0
    fi
  fi
  echo "rocke: the pinned root $root is incomplete or corrupted: $problem; moving it aside and rebuilding." >&2
  mv "$root" "$roots/.trash-$key-$$"
  return 1
}

# The environment every command gets inside the root.
inner_env() {
  echo HOME=/root "TERM=${TERM:-dumb}" PATH=/opt/rocke/venv/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
    ROCKE_IN_ROOT=1 "ROCKE_CHECKOUT=$checkout"
}

# The Bazel server of this checkout, if one runs in this root with this
# checkout mounted: a client must share its mount namespace, or the server's
# working directory looks moved and Bazel restarts it (losing its caches).
bazel_server() {
  local base pid
  base=$cache/bazel/out/$(printf '%s' "$checkout" | md5sum | cut -c1-32)
  pid=$(cat "$base/server/server.pid.txt" 2>/dev/null) || return 1
  [[ -n $pid && -e /proc/$pid/ns/mnt ]] || return 1
  [[ $(readlink "/proc/$pid/root") == / && $(stat -c %d:%i "/proc/$pid/root/") == $(stat -c %d:%i "$root") ]] || return 1
  [[ $(stat -c %d:%i "/proc/$pid/root$checkout" 2>/dev/null) == $(stat -c %d:%i "$checkout") ]] || return 1
  echo "$pid"
}

enter() {
  local cwd pid
  cwd=$(pwd -P)
  [[ $cwd == "$checkout" || $cwd == "$checkout"/* ]] || cwd=$checkout
  mkdir -p "$cache/bazel"
  if [[ $1 == bazel ]] && pid=$(bazel_server); then
    # shellcheck disable=SC2046 # inner_env is a word list
    exec nsenter "--mount=/proc/$pid/ns/mnt" "--root=/proc/$pid/root" /usr/bin/env -i -C / $(inner_env) \
      bash -c 'cd "$0" && exec "$@"' "$cwd" "$@"
  fi
  # The root becomes the namespace's own root (pivot_root onto a bind mount of
  # itself), not a chroot: inside a chroot the kernel refuses the new user
  # namespace that Bazel's linux-sandbox needs (see .bazelrc).
  # shellcheck disable=SC2046
  exec unshare --mount --propagation private -- bash -c '
    set -e
    root=$1 checkout=$2 cache=$3 cwd=$4
    shift 4
    mount --bind "$root" "$root"
    mount -t proc proc "$root/proc" 2>/dev/null || mount --rbind /proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mkdir -p "$root$checkout" "$root$cache"
    mount --bind "$checkout" "$root$checkout"
    mount --bind "$cache" "$root$cache"
    cd "$root"
    pivot_root . .
    umount -l .
    exec /usr/bin/env -i "$@"
  ' _ "$root" "$checkout" "$cache" "$cwd" $(inner_env) bash -c 'cd "$0" && exec "$@"' "$cwd" "$@"
}

main() {
  case ${1:-} in
    key) root_key ;;
    path) ensure_root && stamp_use && echo "$root" ;;
    verify)
      local start=$SECONDS
      ensure_root full
      stamp_use
      echo "rocke: the pinned root $key is whole: all $(wc -l <"$root/.rocke-sha256") files match their sha256 ($((SECONDS - start)) s)" >&2
      ;;
    check)
      shift
      local level=fast problem
      if [[ ${1:-} == --full ]]; then level=full && shift; fi
      [[ $# -eq 1 ]] || die "root.sh check needs one folder, got $# arguments: root.sh check [--full] DIR"
      key=$(root_key)
      problem=$(root_problem "$1" "$level") || { echo "rocke: $1 is not a whole root: $problem" >&2 && return 1; }
      ;;
    exec)
      shift
      [[ $# -gt 0 ]] || die "root.sh exec needs a command to run inside the root."
      if [[ ${ROCKE_IN_ROOT:-} == 1 ]]; then exec "$@"; fi
      check_privilege
      # Held (fd 8, inherited by CMD) until CMD ends, taken before the root is
      # checked: gc never removes a root an exec is about to enter or runs in.
      mkdir -p "$roots/.locks"
      exec 8>>"$roots/.locks/$(root_key).use"
      flock -s 8
      ensure_root
      stamp_use
      enter "$@"
      ;;
    gc)
      source "$here/gc.sh"
      gc_roots
      ;;
    *) die "unknown subcommand '${1:-}'; expected one of: key, path, verify, check [--full] DIR, exec CMD..., gc" ;;
  esac
}

# Sourced (by tests), root.sh only defines its functions.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
