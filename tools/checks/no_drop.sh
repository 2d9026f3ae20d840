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
query engines_tests.txt "$(tag engines "$tests")" "${@}"
query style_tests.txt "$(tag style "$tests")" "${@}"
git ls-files >"$out/files.txt"
# Every rocke_family's entry (platform/build_defs/family.bzl), and those no
# rocke_registry reaches (a package missing from its `packages`).
entries='kind("_family_entry rule", //...)'
query families.xml "$entries" --output=xml "${@}"
query unregistered.txt "$entries except deps(kind(\"_registry_files rule\", //...))" "${@}"
# Each family's case list, for the flavors its cases claim.
query cases.txt "kind(genrule, attr(name, \"_cases$\", siblings($entries)))" "${@}"
if ! ./bazel build "${@}" $(cat "$out/cases.txt") >"$out/build.log" 2>&1; then
  echo "FAIL no-drop: building the families' case lists failed:"
  tail -n 5 "$out/build.log" | sed 's/^/    /'
  echo "checks: 0 passed, 1 failed"
  exit 1
fi
bin=$(./bazel info "${@}" bazel-bin 2>/dev/null)

toolchains/sysroot/root.sh exec env "PYTHONPATH=$checkout/platform:$checkout" \
  python3 "$checkout/tools/checks/no_drop.py" --queries "$out" --bin "$bin" --checkout "$checkout"
