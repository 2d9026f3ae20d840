#!/usr/bin/env bash
# No test drops out silently: see tools/checks/no_drop.py. This script makes
# the `bazel query` calls from the host (so they reuse the running server)
# and hands their outputs to no_drop.py inside the pinned root.
#
#   tools/checks/no_drop.sh [BAZEL_FLAG...]
#
# Prints "PASS name" / "FAIL name: ..." and "checks: P passed, F failed";
# exit status: the number of failed checks.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
checkout=$(pwd -P)
# Under /var/cache/rocke: the pinned root shares it, and it is not the checkout.
mkdir -p /var/cache/rocke/ci
out=$(mktemp -d /var/cache/rocke/ci/no-drop.XXXXXX)
trap 'rm -rf "$out"' EXIT

tag() { printf 'attr(tags, "(^|[\\[ ,])%s([\\] ,]|$)", %s)' "$1" "$2"; }
tests='kind("_test rule", //...)'
query() {
  local file=$1
  shift
  ./bazel query "$@" >"$out/$file" 2>"$out/$file.err" || {
    echo "FAIL no-drop: bazel query for $file failed:"
    tail -n 5 "$out/$file.err" | sed 's/^/    /'
    echo "checks: 0 passed, 1 failed"
    exit 1
  }
}
manual=$(tag manual "$tests")
query manual_tests.txt "$manual" "${@}"
# A manual test that a non-manual test runs (llvm_py_test's _impl, run per
# flavor by its wrappers) is not dropped.
query unwrapped_manual_tests.txt "$manual except deps($tests except $manual, 1)" "${@}"
query golden_tests.txt "$(tag golden "$tests")" "${@}"
query validity_tests.txt "$(tag ir_validity "$tests")" "${@}"
query identity_tests.txt "$(tag byte_identity "$tests")" "${@}"
query style_tests.txt "$(tag style "$tests")" "${@}"
git ls-files >"$out/files.txt"
# Each rocke_family emit genrule names its module in its command.
query emitters.build 'attr(name, "_emit_llvm[0-9]+$", kind(genrule, //...))' --output=build "${@}"
sed -n -e 's/^  name = "\(.*\)",$/\1/p' -e 's/^  cmd = ".* --family \([^ ]*\) .*",$/\1/p' "$out/emitters.build" |
  paste - - >"$out/emitters.raw"
grep -o '^# /[^:]*' "$out/emitters.build" | sed "s|^# $checkout/||; s|/BUILD.bazel$||" >"$out/emitters.pkg"
paste -d' ' "$out/emitters.pkg" "$out/emitters.raw" | awk '{print "//" $1 ":" $2 " " $3}' >"$out/emitters.txt"

toolchains/sysroot/root.sh exec env "PYTHONPATH=$checkout/platform:$checkout/library:$checkout" \
  python3 "$checkout/tools/checks/no_drop.py" --queries "$out" --checkout "$checkout"
