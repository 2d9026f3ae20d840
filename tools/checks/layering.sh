#!/usr/bin/env bash
# The walls between the floors (BUILD.bazel at the top): dependencies run
# app (top floor, with the //tools aliases) -> library (with catalog/) ->
# platform (platform/, toolchains/, tools/). Fails when:
#   - a platform target reaches the library or the top floor by any path, or a
#     library target reaches the top floor (bazel query somepath);
#   - a probe (tools/layering_probe, library/layering_probe: a rule, an
#     exported file, a source file, a select() on a config_setting, the top
#     floor's entrance) builds, or fails for any reason but "is not visible";
#   - a load() probe (*/layering_probe/loads_*.BUILD.in, put in place here for
#     the query) loads, or fails for any reason but the .bzl's visibility;
#   - a route Bazel does not check is open (tools/checks/wall_routes.py:
#     label flags, repository rules, toolchain registration, rc overrides,
#     sys.path edits, symlinks, exports without visibility);
#   - //tools holds anything but aliases.
#
#   tools/checks/layering.sh [BAZEL_FLAG...]
#
# Prints "PASS name" or "FAIL name: ..." per check, then "checks: P passed, F failed".
# Exit status: the number of failed checks.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

source tools/checks/report.sh
query() { ./bazel query "$@" 2>"$err"; }
err=$(mktemp)
loads=()
cleanup() {
  rm -f "$err"
  for pkg in "${loads[@]}"; do rm -rf "$pkg"; done
}
trap cleanup EXIT

probes='//tools/layering_probe:all + //library/layering_probe:all'
platform="(//platform/... + //toolchains/... + //tools/...) except //tools:all except ($probes)"
library="(//library/... + //catalog/...) except ($probes)"
top='//app/... + //tools:all'

# 1. No path down the wrong way (offline, no --keep_going).
for wall in "platform|$platform|$library + $top" "library|$library|$top"; do
  IFS='|' read -r from below above <<<"$wall"
  if path=$(query "somepath($below, $above)" "$@"); then
    if [[ -z $path ]]; then pass "layering: no path from the $from floor upwards"
    else fail "layering: no path from the $from floor upwards: found" "$path"; fi
  else
    fail "layering: the $from somepath query runs offline" "$(tail -n 5 "$err")"
  fi
done

# 2. Every target probe fails analysis with "is not visible", and for no other reason.
targets=$(query "attr(tags, manual, $probes)" "$@")
out=$(./bazel build --keep_going $targets "$@" 2>&1)
status=$?
missing=()
for target in $targets; do
  [[ $out == *"is not visible from target '$target'"* ]] || missing+=("$target")
done
# Any other error (a typo, a missing target) would make a probe fail for the wrong reason.
others=$(grep -E '^ERROR' <<<"$out" | grep -v -e 'is not visible from target' -e 'Analysis of target .* failed' \
  -e 'command succeeded, but not all targets were analyzed' -e 'Build did NOT complete successfully')
if [[ $status -ne 0 && ${#missing[@]} -eq 0 && -z $others && $(wc -w <<<"$targets") -ge 13 ]]; then
  pass "layering: all $(wc -w <<<"$targets") target probes fail with \"is not visible\""
else
  fail "layering: every target probe fails with \"is not visible\"; these did not (bazel exit $status):" "${missing[@]:-(none missing)}" "${others:-(no other error)}"
fi

# 3. Every load() probe fails to load because of the .bzl's visibility.
for probe in tools/layering_probe/loads_*.BUILD.in library/layering_probe/loads_*.BUILD.in; do
  pkg=${probe%.BUILD.in}
  loads+=("$pkg")
  mkdir -p "$pkg" && cp "$probe" "$pkg/BUILD.bazel"
  if query "//$pkg:all" "$@" >/dev/null; then
    fail "layering: the load() probe $probe fails to load" "it loaded: the .bzl it loads declares no visibility() that keeps this floor out"
  elif grep -q "is not visible for loading from package" "$err"; then
    pass "layering: the load() probe $probe is refused (\"is not visible for loading\")"
  else
    fail "layering: the load() probe $probe fails for the .bzl's visibility" "$(grep -m 3 ERROR "$err")"
  fi
  rm -rf "$pkg"
done

# 4. The routes Bazel does not check.
if routes=$(git ls-files -s | toolchains/sysroot/root.sh exec python3 tools/checks/wall_routes.py . 2>&1); then
  pass "layering: no route around visibility (label flags, repositories, toolchains, rc overrides, sys.path, symlinks, exports)"
else
  fail "layering: no route around visibility; close these:" "$routes"
fi

# 5. //tools holds only aliases.
if others=$(query 'kind(rule, //tools:all) except kind(alias, //tools:all)' "$@"); then
  if [[ -z $others ]]; then pass "layering: //tools holds only aliases"
  else fail "layering: //tools holds only aliases; move these into their own package:" "$others"; fi
else
  fail "layering: the //tools query runs" "$(tail -n 5 "$err")"
fi

report
exit "$failed"
