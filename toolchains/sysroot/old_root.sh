#!/usr/bin/env bash
# The pinned root: build it once per machine, then run commands inside it.
#
#   root.sh key              print the root's key (hash of what it is built from)
#   root.sh path             build the root if needed, print its path
#   root.sh check DIR        exit 0 if DIR is a whole root for the current key
#   root.sh exec CMD ARG...  build the root if needed, run CMD inside it with the
#                            checkout mounted at the same absolute path
#
# Roots live in /var/cache/rocke/roots/<key>. A root is built into a temporary
# folder and renamed into place only when complete, under an exclusive lock, so
# concurrent callers wait for one build and a killed build is never trusted.
# Every mount happens inside a private mount namespace (unshare --mount): when
# the last process in it ends, the mounts are gone, and the host never sees one.
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
  usr/lib/llvm-22/bin/llc usr/lib/llvm-22/bin/lld
  usr/lib/llvm-23/bin/llc usr/lib/llvm-23/bin/lld
  usr/lib/llvm-24/bin/llc usr/lib/llvm-24/bin/lld
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
  [[ $EUID -eq 0 ]] || die "building and entering the pinned root needs root (for chroot and mount namespaces); running as uid $EUID." \
    "Run ./bazel as root, or in a container started with CAP_SYS_ADMIN."
  local err
  err=$(unshare --mount --propagation private true 2>&1) || die "cannot create a private mount namespace: $err" \
    "The pinned root is entered with 'unshare --mount' and chroot, which need CAP_SYS_ADMIN." \
    "Run in a container with --privileged or --cap-add SYS_ADMIN."
}

# A root is trusted only if its marker names this key and every vital file
# still has the size recorded when the build finished.
root_is_whole() {
  local dir=$1 marker=$1/.rocke-root
  [[ -f $marker ]] || return 1
  local expected
  expected=$(cat "$marker")
  local actual
  actual=$(cd "$dir" && printf 'key %s\n' "$key" && stat -c '%n %s' "${vital[@]}" 2>/dev/null) || return 1
  [[ $expected == "$actual" ]]
}

ensure_root() {
  key=$(root_key)
  root=$roots/$key
  if root_is_whole "$root"; then return; fi
  check_privilege
  mkdir -p "$roots/.locks" "$roots/.logs"
  exec 9>"$roots/.locks/$key.lock"
  if ! flock -n 9; then
    echo "rocke: another ./bazel is building the pinned root $key; waiting for it..." >&2
    flock 9
  fi
  if root_is_whole "$root"; then exec 9>&-; return; fi
  if [[ -e $root ]]; then
    echo "rocke: the pinned root $root is incomplete or corrupted; moving it aside and rebuilding." >&2
    mv "$root" "$roots/.trash-$key-$$"
  fi
  rm -rf "$roots"/.tmp-"$key"-* "$roots"/.trash-*
  local free_kb
  free_kb=$(df -Pk "$roots" | awk 'NR==2 {print $4}')
  ((free_kb >= 6 * 1024 * 1024)) || die "not enough disk space to build the pinned root: $((free_kb / 1024)) MiB free under $roots, 6144 MiB needed." \
    "Free space there, or point ROCKE_ROOTS at a larger disk."
  local tmp=$roots/.tmp-$key-$$
  local log=$roots/.logs/$key.log
  echo "rocke: building the pinned root $key (about 2 minutes; log: $log)" >&2
  local start=$SECONDS
  # The build runs in its own mount namespace so that /proc and /dev mounts die with it.
  if ! unshare --mount --propagation private -- bash "$here/build_root.sh" "$tmp" "$key" "$log" "$checkout" "${vital[@]}"; then
    # Processes of the build may still be exiting; whatever is left of the
    # partial root goes at the start of the next build.
    rm -rf "$tmp" 2>/dev/null || true
    die "building the pinned root failed and its partial root will not be used. Last lines of $log:" \
      "$(tail -n 25 "$log" | sed 's/^/    /')"
  fi
  mv "$tmp" "$root"
  exec 9>&-
  echo "rocke: pinned root $key ready in $((SECONDS - start)) s" >&2
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
  [[ $(readlink "/proc/$pid/root") == "$root" ]] || return 1
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
  # shellcheck disable=SC2046
  exec unshare --mount --propagation private -- bash -c '
    set -e
    root=$1 checkout=$2 cache=$3 cwd=$4
    shift 4
    mount -t proc proc "$root/proc" 2>/dev/null || mount --rbind /proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mkdir -p "$root$checkout" "$root$cache"
    mount --bind "$checkout" "$root$checkout"
    mount --bind "$cache" "$root$cache"
    exec chroot "$root" /usr/bin/env -i "$@"
  ' _ "$root" "$checkout" "$cache" "$cwd" $(inner_env) bash -c 'cd "$0" && exec "$@"' "$cwd" "$@"
}

case ${1:-} in
  key) root_key ;;
  path) ensure_root && echo "$root" ;;
  check)
    key=$(root_key)
    root_is_whole "${2:?root.sh check needs a folder}"
    ;;
  exec)
    shift
    [[ $# -gt 0 ]] || die "root.sh exec needs a command to run inside the root."
    if [[ ${ROCKE_IN_ROOT:-} == 1 ]]; then exec "$@"; fi
    ensure_root
    check_privilege
    enter "$@"
    ;;
  *) die "unknown subcommand '${1:-}'; expected one of: key, path, exec CMD..." ;;
esac
