#!/usr/bin/env bash
# Builds the remote executor's environment layer: an overlay upper folder that,
# stacked on the pinned root, adds the packages of ./packages and a BuildGrid
# venv (./buildgrid.lock). Called by executor.sh inside a private mount and PID
# namespace, holding the layer's lock:
#
#   build_env.sh TMP ROOT LOG
#
# TMP/layer becomes the layer; ROOT (the pinned root) is the overlay's read-only
# lower folder, so the root itself is never written. Progress goes to stderr,
# command output to LOG.
set -euo pipefail

tmp=$1 root=$2 log=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
: >"$log"
start=$SECONDS
say() { printf 'rocke remote: [%3ds] %s\n' "$((SECONDS - start))" "$1" >&2; }
fail() { printf 'rocke remote: %s See %s.\n' "$1" "$log" >&2 && exit 1; }
run() { "$@" >>"$log" 2>&1; }
merged=$tmp/merged
in_env() { run chroot "$merged" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin:/usr/sbin:/sbin LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

mkdir -p "$tmp/layer" "$tmp/work" "$merged"
mount -t overlay overlay -o "lowerdir=$root,upperdir=$tmp/layer,workdir=$tmp/work" "$merged"
mount -t proc proc "$merged/proc"
mount --rbind /dev "$merged/dev"
cp /etc/resolv.conf "$merged/etc/resolv.conf"

mapfile -t packages < <(awk '$1 == "package" {print $2 "=" $3}' "$here/packages")
say "installing ${packages[*]} (about 30 s)"
# No service starts while packages install: postgresql's postinst would start
# its default cluster, a process outliving the install.
printf '#!/bin/sh\nexit 101\n' >"$merged/usr/sbin/policy-rc.d"
chmod +x "$merged/usr/sbin/policy-rc.d"
in_env apt-get update || fail "apt-get update failed in the executor environment."
in_env apt-get install -y --no-install-recommends "${packages[@]}" ||
  fail "installing ${packages[*]} failed; a version in tools/remote/packages may be gone from the mirror."
in_env apt-get clean
rm "$merged/usr/sbin/policy-rc.d"

say "BuildGrid venv /opt/rocke-remote/buildgrid from tools/remote/buildgrid.lock"
in_env python3 -m venv /opt/rocke-remote/buildgrid
cp "$here/buildgrid.lock" "$merged/opt/rocke-remote/buildgrid/requirements.lock"
in_env /opt/rocke-remote/buildgrid/bin/pip install --disable-pip-version-check --no-deps --require-hashes \
  --only-binary=:all: -r /opt/rocke-remote/buildgrid/requirements.lock ||
  fail "installing BuildGrid from PyPI failed: is PyPI reachable, and does every hash in tools/remote/buildgrid.lock still match?"

say "checking the tools"
in_env /opt/rocke-remote/buildgrid/bin/bgd --help || fail "bgd does not start."
in_env test -x /usr/bin/buildbox-worker -a -x /usr/bin/buildbox-run-hosttools || fail "buildbox-worker or buildbox-run-hosttools is missing."
in_env test -x /usr/lib/postgresql/18/bin/initdb || fail "PostgreSQL 18's initdb is missing."
umount -R "$merged/dev" "$merged/proc"
umount "$merged"
