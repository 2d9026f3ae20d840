#!/usr/bin/env bash
# Builds the pinned root described by ./manifest into DIR. Called by root.sh,
# inside a private mount namespace, holding the root's lock:
#
#   build_root.sh DIR KEY LOG CHECKOUT VITAL_FILE...
#
# Progress goes to stderr, one line per step; command output goes to LOG.
set -euo pipefail

dir=$1 key=$2 log=$3 checkout=$4
shift 4
vital=("$@")
here=$checkout/toolchains/sysroot
: >"$log"
start=$SECONDS
step=0
steps=7

say() { step=$((step + 1)); printf 'rocke: [%d/%d %3ds] %s\n' "$step" "$steps" "$((SECONDS - start))" "$1" >&2; }
fail() {
  printf 'rocke: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '  %s\n' "$line" >&2; done
  exit 1
}
run() { "$@" >>"$log" 2>&1; }
in_root() { run chroot "$dir" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin:/usr/sbin:/sbin LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

# Manifest fields, one kind at a time: "package NAME VERSION" -> "NAME=VERSION".
field() { awk -v k="$1" '$1 == k {print $2}' "$here/manifest"; }
pins() { awk -v k="$1" '$1 == k {print $2 "=" $3}' "$here/manifest"; }
mirror=$(field mirror)
suite=$(field suite)
mapfile -t packages < <(pins package)
mapfile -t experimental < <(pins experimental)

say "checking the host: debootstrap, and the Debian mirror $mirror"
if ! command -v debootstrap >/dev/null; then
  command -v apt-get >/dev/null || fail "debootstrap is missing and this host has no apt-get to install it." \
    "Install debootstrap (Debian package 'debootstrap'), then run ./bazel again."
  run apt-get update || true
  run apt-get install -y debootstrap || fail "could not install debootstrap on the host with apt-get." \
    "Is the Debian package registry reachable? See $log."
fi
probe=$(mktemp)
if ! /usr/lib/apt/apt-helper download-file "$mirror/dists/$suite/Release" "$probe" >>"$log" 2>&1; then
  rm -f "$probe"
  fail "the Debian package registry is unreachable: could not download $mirror/dists/$suite/Release." \
    "The pinned root is built from that mirror; check the network or proxy, then run ./bazel again."
fi
rm -f "$probe"

say "debootstrap $suite (minbase, about 30 s)"
run debootstrap --variant=minbase "$suite" "$dir" "$mirror" || fail "debootstrap of $suite from $mirror failed." "See $log."

# The mirror is a frozen snapshot whose Release files have expired.
echo 'Acquire::Check-Valid-Until "false";' >"$dir/etc/apt/apt.conf.d/99rocke-snapshot"
printf 'deb %s %s main\ndeb %s experimental main\n' "$mirror" "$suite" "$mirror" >"$dir/etc/apt/sources.list"
cp /etc/resolv.conf "$dir/etc/resolv.conf"
mount -t proc proc "$dir/proc"
mount --rbind /dev "$dir/dev"

say "installing ${#packages[@]} pinned packages from $suite and ${#experimental[@]} from experimental (about 60 s)"
in_root apt-get update || fail "apt-get update inside the root failed." "See $log."
in_root apt-get install -y --no-install-recommends "${packages[@]}" ||
  fail "installing the pinned packages failed; a version in toolchains/sysroot/manifest may be gone from the mirror." "See $log."
in_root apt-get install -y --no-install-recommends -t experimental "${experimental[@]}" ||
  fail "installing the pinned experimental packages failed." "See $log."
in_root apt-get clean

say "trusting the host's CA bundle (HTTPS to PyPI goes through its proxy)"
if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
  mkdir -p "$dir/usr/local/share/ca-certificates/host"
  awk -v out="$dir/usr/local/share/ca-certificates/host/host" '
    /BEGIN CERTIFICATE/ {n++} n {print > (out "-" n ".crt")}' /etc/ssl/certs/ca-certificates.crt
  in_root update-ca-certificates
fi

pip_install() {
  local venv=$1 lock=$2 what=$3
  in_root python3 -m venv "$venv"
  cp "$lock" "$dir$venv/requirements.lock"
  in_root "$venv/bin/pip" install --disable-pip-version-check --no-deps --require-hashes \
    --only-binary=:all: -r "$venv/requirements.lock" ||
    fail "installing $what from PyPI failed: is PyPI reachable, and does every hash in $lock still match?" "See $log."
}
say "Python venv /opt/rocke/venv from toolchains/python/requirements.lock"
pip_install /opt/rocke/venv "$checkout/toolchains/python/requirements.lock" "the Python toolchain"
say "LLVM 20 environment /opt/rocke/llvm20 from toolchains/llvm/llvmlite.lock"
pip_install /opt/rocke/llvm20 "$checkout/toolchains/llvm/llvmlite.lock" "llvmlite (LLVM 20)"

say "checking the root and stamping it"
in_root /opt/rocke/venv/bin/python3 -c 'import numpy, pytest, absl, pybind11, hypothesis' ||
  fail "the Python toolchain venv does not import its packages." "See $log."
in_root /opt/rocke/llvm20/bin/python3 -c 'import llvmlite.binding' ||
  fail "llvmlite does not import in /opt/rocke/llvm20." "See $log."
# The root key reaches Bazel as a startup option (a new root restarts the
# server) and as an action/test environment entry (a new root changes every
# action key, so no cache entry made by another root is reused).
cat >"$dir/etc/bazel.bazelrc" <<EOF
startup --host_jvm_args=-Drocke.root=$key
common --action_env=ROCKE_ROOT=$key
common --test_env=ROCKE_ROOT=$key
EOF
umount -R "$dir/dev" "$dir/proc"
(cd "$dir" && printf 'key %s\n' "$key" && stat -c '%n %s' "${vital[@]}") >"$dir/.rocke-root"
printf 'rocke: root built in %d s\n' "$((SECONDS - start))" >&2
