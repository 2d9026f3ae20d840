#!/usr/bin/env bash
# The library/platform wall, for every path (BUILD.bazel at the top explains
# the sinks; catalog/, the library's example catalogs, is library code). Fails when:
#   - any platform or toolchain target reaches library code by any path;
#   - a sink (a non-library target that depends on library code) has no probe
#     in tools/layering_probe, so nothing proves it is walled off;
#   - a probe builds, or fails for any reason but "is not visible";
#   - //tools holds anything but aliases (its aliases may name sinks).
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
trap 'rm -f "$err"' EXIT

# 1. No path from platform or toolchains to library (offline, no --keep_going).
if path=$(query 'somepath(//platform/... + //toolchains/..., //library/... + //catalog/...)' "$@"); then
  if [[ -z $path ]]; then pass "layering: no path from //platform or //toolchains to //library"
  else fail "layering: no path from //platform or //toolchains to //library: found" "$path"; fi
else
  fail "layering: the somepath query runs offline" "$(tail -n 5 "$err")"
fi

# 2. Every sink has a probe.
probes=//tools/layering_probe:all
if sinks=$(query "rdeps(//..., //library/...) except filter('^//(library|goldens/library|catalog|tools/layering_probe)[/:]', rdeps(//..., //library/...))" "$@") &&
  probed=$(query --noimplicit_deps "deps($probes, 1) except $probes" "$@"); then
  unprobed=$(comm -23 <(sort <<<"$sinks") <(sort <<<"$probed"))
  if [[ -n $sinks && -z $unprobed ]]; then pass "layering: every sink ($(wc -l <<<"$sinks")) has a probe in tools/layering_probe"
  else fail "layering: every sink has a probe in tools/layering_probe; add one for each of" "${unprobed:-(no sinks found at all: the query is wrong)}"; fi
else
  fail "layering: the sink and probe queries run offline" "$(tail -n 5 "$err")"
fi

# 3. Every probe fails analysis with "is not visible", and for no other reason.
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
if [[ $status -ne 0 && ${#missing[@]} -eq 0 && -z $others && -n $targets ]]; then
  pass "layering: all $(wc -w <<<"$targets") probes fail with \"is not visible\""
else
  fail "layering: every probe fails with \"is not visible\"; these did not (bazel exit $status):" "${missing[@]:-(none missing)}" "${others:-(no other error)}"
fi

# 4. //tools holds only aliases.
if others=$(query 'kind(rule, //tools:all) except kind(alias, //tools:all)' "$@"); then
  if [[ -z $others ]]; then pass "layering: //tools holds only aliases"
  else fail "layering: //tools holds only aliases; move these into their own package:" "$others"; fi
else
  fail "layering: the //tools query runs" "$(tail -n 5 "$err")"
fi

report
exit "$failed"
